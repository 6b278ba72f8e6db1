package executor

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
	"syscall"

	"github.com/bmatcuk/doublestar/v4"

	"exo/sandbox"
)

// maxListed bounds the entries glob, grep and list_dir return.
const maxListed = 500

// searchRoot opens the workspace and returns it with the slash path of a resolved search root.
func (tc toolCtx) searchRoot(p string) (*sandbox.Dir, string, error) {
	abs, err := tc.resolve(p)
	if err != nil {
		return nil, "", err
	}
	d, err := tc.openWorkspace()
	if err != nil {
		return nil, "", err
	}
	return d, tc.rel(abs), nil
}

// runGlob runs the tool with its arguments decoded.
var runGlob = decoding(glob)

func glob(_ context.Context, tc toolCtx, a *globArgs) toolOutput {
	if !doublestar.ValidatePattern(a.Pattern) {
		return failed("invalid glob pattern " + a.Pattern)
	}
	d, root, err := tc.searchRoot(a.Path)
	if err != nil {
		return failed(err.Error())
	}
	defer d.Close()
	base, pattern := doublestar.SplitPattern(a.Pattern)
	start, depth := path.Join(root, base), globDepth(pattern)
	var out []string
	err = sandbox.WalkFiles(d, start, sandbox.WalkOptions{IncludeIgnored: a.IncludeIgnored, Private: tc.x.h.PrivateIn(tc.ws)}, func(p string, e fs.DirEntry) error {
		rel := strings.TrimPrefix(p, start+"/")
		if start == "." {
			rel = p
		}
		if ok, _ := doublestar.Match(pattern, rel); ok {
			out = append(out, p)
			if len(out) >= maxListed {
				return fs.SkipAll
			}
		}
		if e.IsDir() && depth > 0 && strings.Count(rel, "/")+1 >= depth {
			return fs.SkipDir
		}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		err = nil // the pattern's fixed folder is not there: nothing matches.
	}
	if err != nil {
		return fsError("glob", a.Pattern, err)
	}
	sort.Strings(out)
	if len(out) == 0 {
		return toolOutput{text: "no files match " + a.Pattern + ignoredNote(a.IncludeIgnored)}
	}
	return toolOutput{text: strings.Join(out, "\n") + listedNote(len(out))}
}

// globDepth is how many folders deep a pattern can match (0: any depth, it has **).
func globDepth(pattern string) int {
	if strings.Contains(pattern, "**") {
		return 0
	}
	return strings.Count(pattern, "/") + 1
}

// ignoredNote tells the model, when a search found nothing, that ignored files were left out.
func ignoredNote(included bool) string {
	if included {
		return ""
	}
	return " (files ignored by .gitignore were not searched; set include_ignored to search them)"
}

func listedNote(n int) string {
	if n >= maxListed {
		return fmt.Sprintf("\n[stopped at %d entries; narrow the pattern or path]", maxListed)
	}
	return ""
}

// runGrep runs the tool with its arguments decoded.
var runGrep = decoding(grep)

func grep(ctx context.Context, tc toolCtx, a *grepArgs) toolOutput {
	re, err := regexp.Compile(a.Pattern)
	if err != nil {
		return failed("grep: invalid regular expression: " + err.Error())
	}
	d, root, err := tc.searchRoot(a.Path)
	if err != nil {
		return failed(err.Error())
	}
	defer d.Close()
	if fi, err := d.Lstat(root); err == nil && fi.Mode().IsRegular() {
		// One file named by path: searched whatever the ignore files say.
		if out := grepFile(d, root, re, nil, tc.x.h.RedactCut); len(out) > 0 {
			return toolOutput{text: strings.Join(out, "\n") + listedNote(len(out))}
		}
		return toolOutput{text: "no matches for " + a.Pattern + " in " + root}
	}
	var out []string
	walkErr := sandbox.WalkFiles(d, root, sandbox.WalkOptions{IncludeIgnored: a.IncludeIgnored, Private: tc.x.h.PrivateIn(tc.ws)}, func(p string, e fs.DirEntry) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if !e.Type().IsRegular() {
			return nil // folders are walked; links are not followed; devices and pipes are not text.
		}
		if a.Glob != "" {
			if ok, _ := doublestar.Match(a.Glob, p); !ok {
				if ok, _ := doublestar.Match(a.Glob, e.Name()); !ok {
					return nil
				}
			}
		}
		out = grepFile(d, p, re, out, tc.x.h.RedactCut)
		if len(out) >= maxListed {
			return fs.SkipAll
		}
		return nil
	})
	if walkErr != nil {
		return fsError("grep", a.Path, walkErr)
	}
	if len(out) == 0 {
		return toolOutput{text: "no matches for " + a.Pattern + ignoredNote(a.IncludeIgnored)}
	}
	return toolOutput{text: strings.Join(out, "\n") + listedNote(len(out))}
}

// grepWindow is how much of a line grep holds at once, and grepOverlap how much of one window
// the next keeps: a line longer than the window (a minified bundle, a 2 MB generated file) is
// searched window by window in bounded memory, and a match up to grepOverlap long that spans two
// windows is still found.
const (
	grepWindow  = 1 << 20
	grepOverlap = 64 << 10
)

// grepFile appends "path:line: text" for matching lines of a text file; a file that changed
// into a link since it was listed is skipped. A long line is cut by cut (which redacts before
// cutting, so the cut cannot leave part of a secret); a line longer than grepWindow is shown by
// its head, with where the match is.
func grepFile(d *sandbox.Dir, rel string, re *regexp.Regexp, out []string, cut func(string, int) string) []string {
	f, err := d.Open(rel)
	if err != nil {
		return out
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64<<10)
	var (
		buf     []byte // the line so far, or its current window
		head    []byte // a long line's first bytes, to show it
		skipped int    // bytes of the line before buf
		found   bool   // the line was reported already
	)
	report := func(n int, match int) {
		found = true
		if head == nil {
			out = append(out, fmt.Sprintf("%s:%d: %s", rel, n, cut(strings.ToValidUTF8(string(buf), "\uFFFD"), 300)))
			return
		}
		out = append(out, fmt.Sprintf("%s:%d: %s [a line longer than %d MiB: the match is at byte %d]",
			rel, n, cut(strings.ToValidUTF8(string(head), "\uFFFD"), 300), grepWindow>>20, skipped+match))
	}
	for n := 1; len(out) < maxListed; {
		chunk, err := r.ReadSlice('\n')
		if bytes.IndexByte(chunk, 0) >= 0 {
			return out // binary
		}
		buf = append(buf, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			if len(buf) >= grepWindow+grepOverlap { // search this window, keep its end for the next
				if head == nil {
					head = append([]byte{}, buf[:grepOverlap]...)
				}
				if loc := re.FindIndex(buf); !found && loc != nil {
					report(n, loc[0])
				}
				keep := len(buf) - grepOverlap
				skipped += keep
				buf = append(buf[:0], buf[keep:]...)
			}
			continue
		}
		line := bytes.TrimSuffix(buf, []byte("\n"))
		if len(line) > 0 || err == nil {
			if loc := re.FindIndex(line); !found && loc != nil {
				buf = line
				report(n, loc[0])
			}
		}
		if err != nil {
			return out // the end of the file, or it could not be read further
		}
		buf, head, skipped, found = buf[:0], nil, 0, false
		n++
	}
	return out
}

// runListDir runs the tool with its arguments decoded.
var runListDir = decoding(listDir)

func listDir(_ context.Context, tc toolCtx, a *listDirArgs) toolOutput {
	d, root, err := tc.searchRoot(a.Path)
	if err != nil {
		return failed(err.Error())
	}
	defer d.Close()
	entries, err := d.ReadDir(root)
	if err != nil {
		return fsError("list", a.Path, err)
	}
	priv := tc.x.h.PrivateIn(tc.ws)
	entries = slices.DeleteFunc(entries, func(e fs.DirEntry) bool { return sandbox.IsPrivate(path.Join(root, e.Name()), priv) })
	var b strings.Builder
	for i, e := range entries {
		if i >= maxListed {
			b.WriteString(listedNote(maxListed))
			break
		}
		switch fi, _ := e.Info(); {
		case e.IsDir():
			b.WriteString(e.Name() + "/\n")
		case e.Type()&fs.ModeSymlink != 0:
			target, _ := d.Readlink(path.Join(root, e.Name()))
			fmt.Fprintf(&b, "%s -> %s\n", e.Name(), target)
		default:
			fmt.Fprintf(&b, "%s\t%d\n", e.Name(), fi.Size())
		}
	}
	if b.Len() == 0 {
		return toolOutput{text: "(empty directory)"}
	}
	return toolOutput{text: b.String()}
}
