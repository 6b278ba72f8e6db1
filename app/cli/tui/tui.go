package tui

import (
	"exo/app"
	"exo/app/cli"
	"exo/harness/api"
	"exo/themes"
)

// App is the full-screen app as cli.Options.App.
type App struct{}

// CheckTheme says why name is not a theme exo knows.
func (App) CheckTheme(name string) error {
	_, err := themes.ByName(name, true, false)
	return err
}

// Pick shows the session picker (exo -r) and returns the session chosen.
func (App) Pick(c api.Client, workspace, theme string) (string, error) {
	return app.Pick(c, app.PickOptions{Workspace: workspace, Theme: theme})
}

// Run opens the app.
func (App) Run(c api.Client, o cli.AppOptions) error {
	return app.Run(c, app.Options(o))
}
