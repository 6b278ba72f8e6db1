package service

import (
	"fmt"

	"exo/harness"
	"exo/harness/config"
)

// settingApproval is the session setting holding the user's approval mode of its last turn
// (wake-ups and clients that send none keep it).
const settingApproval = "approval"

// approvalMode returns the approval mode of a turn: the requested one (empty keeps the
// session's), tightened by the session's project file when it asks for more. A project file
// exo cannot read stops the turn with its file:line, rather than run looser than it says.
func (s *Service) approvalMode(se *harness.Session, requested string) (string, error) {
	switch requested {
	case "", config.ApprovalAuto, config.ApprovalAsk, config.ApprovalReadOnly:
	default:
		return "", invalidf("approval mode %q: give auto, ask or read-only", requested)
	}
	if requested == "" {
		requested = se.Settings[settingApproval]
	} else if requested != se.Settings[settingApproval] {
		if _, err := s.updated(s.h.UpdateSession(se.ID, func(x *harness.Session) error {
			if x.Settings == nil {
				x.Settings = map[string]string{}
			}
			x.Settings[settingApproval] = requested
			return nil
		})); err != nil {
			return "", fmt.Errorf("record the approval mode of %s: %w", se.Name, err)
		}
	}
	project, err := config.ProjectApproval(se.Workspace)
	if err != nil {
		return "", invalid(err)
	}
	return config.Stricter(requested, project), nil
}
