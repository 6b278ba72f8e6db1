package providertest

import (
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"go.yaml.in/yaml/v4"
)

// Cassette is a recording of HTTP exchanges with a live model API in the
// go-vcr version 2 format (as kept under testdata/providers/recorded).
type Cassette struct {
	// Path is the file the cassette was read from.
	Path string
	// Interactions are the exchanges in the order they happened.
	Interactions []Interaction `yaml:"interactions"`
}

// Interaction is one recorded request and its answer.
type Interaction struct {
	// ID numbers the interaction within the cassette.
	ID int `yaml:"id"`
	// Request is what the recording client sent.
	Request struct {
		Body   string `yaml:"body"`
		URL    string `yaml:"url"`
		Method string `yaml:"method"`
	} `yaml:"request"`
	// Response is what the live service answered.
	Response struct {
		Body    string              `yaml:"body"`
		Headers map[string][]string `yaml:"headers"`
		Code    int                 `yaml:"code"`
	} `yaml:"response"`
}

// The wire formats a cassette's requests speak.
const (
	WireAnthropic = "anthropic" // Messages API
	WireChat      = "chat"      // Chat Completions
	WireResponses = "responses" // Responses API
	WireGemini    = "gemini"    // Gemini API streamGenerateContent
)

// LoadCassette reads a cassette file.
func LoadCassette(path string) (*Cassette, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cassette: %w", err)
	}
	c := &Cassette{Path: path}
	if err := yaml.Unmarshal(raw, c); err != nil {
		return nil, fmt.Errorf("cassette %s: %w", path, err)
	}
	if len(c.Interactions) == 0 {
		return nil, fmt.Errorf("cassette %s: no interactions", path)
	}
	return c, nil
}

// Cassettes loads every cassette under dir, sorted by path.
func Cassettes(dir string) ([]*Cassette, error) {
	var paths []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".yaml") {
			paths = append(paths, p)
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("cassettes: %w", err)
	}
	sort.Strings(paths)
	out := make([]*Cassette, 0, len(paths))
	for _, p := range paths {
		c, err := LoadCassette(p)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// Wire names the API format of the cassette's requests from their URL.
func (c *Cassette) Wire() string {
	u, err := url.Parse(c.Interactions[0].Request.URL)
	if err != nil {
		return ""
	}
	switch {
	case strings.HasSuffix(u.Path, "/chat/completions"):
		return WireChat
	case strings.HasSuffix(u.Path, "/responses"):
		return WireResponses
	case strings.Contains(u.Path, ":streamGenerateContent"):
		return WireGemini
	case strings.HasSuffix(u.Path, "/messages"), strings.Contains(u.Path, ":streamRawPredict"), strings.Contains(u.Path, ":rawPredict"):
		return WireAnthropic
	}
	return ""
}

// Host is the recorded service's host name, e.g. "openrouter.ai".
func (c *Cassette) Host() string {
	u, err := url.Parse(c.Interactions[0].Request.URL)
	if err != nil {
		return ""
	}
	return u.Host
}

// Replies turns the cassette's answers into replies for a ReplyServer, each
// written in pieces of chunk bytes (0: whole).
func (c *Cassette) Replies(chunk int) []Reply {
	out := make([]Reply, 0, len(c.Interactions))
	for _, it := range c.Interactions {
		h := map[string]string{}
		for k, v := range it.Response.Headers {
			if len(v) > 0 {
				h[k] = v[0]
			}
		}
		out = append(out, Reply{Status: it.Response.Code, Header: h, Body: it.Response.Body, Chunk: chunk})
	}
	return out
}
