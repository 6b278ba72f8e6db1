package secrets

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

var testValue = []byte("s3cr3t-Value_42!")

func testRedactor() *Redactor {
	return NewRedactor(map[string][]byte{"TOKEN": testValue})
}

func TestRedactEncodings(t *testing.T) {
	r := testRedactor()
	for name, enc := range map[string]string{
		"raw":           string(testValue),
		"base64":        base64.StdEncoding.EncodeToString(testValue),
		"base64 raw":    base64.RawStdEncoding.EncodeToString(testValue),
		"base64url":     base64.URLEncoding.EncodeToString(testValue),
		"base64url raw": base64.RawURLEncoding.EncodeToString(testValue),
		"hex":           hex.EncodeToString(testValue),
		"HEX":           strings.ToUpper(hex.EncodeToString(testValue)),
	} {
		got := r.String("before " + enc + " after")
		if got != "before ‹secret:TOKEN› after" {
			t.Errorf("%s: %q", name, got)
		}
	}
}

func TestRedactBase64InsideLongerText(t *testing.T) {
	r := testRedactor()
	for prefix := 0; prefix < 6; prefix++ {
		for _, suffix := range []string{"", "\n", "xyz"} {
			plain := strings.Repeat("p", prefix) + string(testValue) + suffix
			for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
				e := enc.EncodeToString([]byte(plain))
				got := r.String(e)
				if !strings.Contains(got, "‹secret:TOKEN›") {
					t.Errorf("prefix %d suffix %q: %q not redacted", prefix, suffix, e)
				}
				// What is left of the encoding must not decode to the value.
				rest := strings.ReplaceAll(got, "‹secret:TOKEN›", "")
				if dec, _ := enc.DecodeString(rest); bytes.Contains(dec, testValue) {
					t.Errorf("value recoverable from %q", got)
				}
			}
		}
	}
}

func TestRedactNoFalsePositives(t *testing.T) {
	r := testRedactor()
	for _, s := range []string{
		"s3cr3t-Value_4 (most of it, but not at a cut)", "s3cr3t-Value_43!", "S3CR3T-VALUE_42!", "prefix s3cr3t- and Value_42!", "ends with s3cr3",
		base64.StdEncoding.EncodeToString([]byte("s3cr3t-Value_4")), "",
	} {
		if got := r.String(s); got != s {
			t.Errorf("%q changed to %q", s, got)
		}
	}
	short := NewRedactor(map[string][]byte{"SHORT": []byte("abc12")})
	if got := short.String("abc12 abc12"); got != "abc12 abc12" {
		t.Errorf("short value redacted: %q", got)
	}
}

func TestRedactManySecretsLongestWins(t *testing.T) {
	values := map[string][]byte{}
	for i := 0; i < 200; i++ {
		values[fmt.Sprintf("S%03d", i)] = []byte(fmt.Sprintf("secret-value-%03d-xyz", i))
	}
	values["INNER"] = []byte("value-007")
	values["OUTER"] = []byte("secret-value-007-xyz-and-more")
	r := NewRedactor(values)
	in := "a secret-value-150-xyz b secret-value-007-xyz-and-more c value-007 d secret-value-199-xyz"
	wantStr(t, r.String(in), "a ‹secret:S150› b ‹secret:OUTER› c ‹secret:INNER› d ‹secret:S199›")
}

func TestRedactStreamSplitAcrossChunks(t *testing.T) {
	r := NewRedactor(map[string][]byte{"TOKEN": testValue, "OTHER": []byte("another-one-here")})
	text := "log: " + string(testValue) + " / " + base64.StdEncoding.EncodeToString(testValue) +
		" / another-one-here / " + hex.EncodeToString(testValue) + " / s3cr3t-Valu end"
	want := r.String(text)
	if strings.Contains(want, "s3cr3t-Value_42!") {
		t.Fatal("whole-string redaction failed")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 300; trial++ {
		var out bytes.Buffer
		w := r.NewWriter(&out)
		for rest := text; rest != ""; {
			n := min(1+rng.IntN(9), len(rest))
			if _, err := w.Write([]byte(rest[:n])); err != nil {
				t.Fatal(err)
			}
			if w.s.Pending() > r.Longest()-1 {
				t.Fatalf("held back %d bytes, more than longest-1 = %d", w.s.Pending(), r.Longest()-1)
			}
			rest = rest[n:]
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if out.String() != want {
			t.Fatalf("trial %d:\ngot  %q\nwant %q", trial, out.String(), want)
		}
	}
}

func TestRedactStreamOneByteAtATime(t *testing.T) {
	r := testRedactor()
	s := r.NewStream()
	var out []byte
	for _, b := range []byte("x" + string(testValue) + "y") {
		out = append(out, s.Next([]byte{b})...)
	}
	out = append(out, s.Flush()...)
	wantStr(t, string(out), "x‹secret:TOKEN›y")
}

func TestRedactStreamReleasesNonMatches(t *testing.T) {
	r := testRedactor()
	s := r.NewStream()
	got := string(s.Next([]byte("plain text with no secret")))
	wantStr(t, got, "plain text with no secret")
	got = string(s.Next([]byte("tail s3cr3")))
	wantStr(t, got, "tail ")
	wantStr(t, string(s.Flush()), "s3cr3") // shorter than MinPartial: not judged a secret
}

func BenchmarkRedactStream(b *testing.B) {
	values := map[string][]byte{}
	for i := 0; i < 20; i++ {
		values[fmt.Sprintf("S%d", i)] = []byte(fmt.Sprintf("sk-%040d", i))
	}
	r := NewRedactor(values)
	chunk := bytes.Repeat([]byte("build output line: compiling package foo/bar ... ok\n"), 80)
	b.SetBytes(int64(len(chunk)))
	s := r.NewStream()
	for i := 0; i < b.N; i++ {
		_ = s.Next(chunk)
	}
}

func TestRedactWrappedBase64OfALongKey(t *testing.T) {
	key := []byte("sk-ant-api03-" + strings.Repeat("Ab3_xY9-", 12) + "QQ")
	r := NewRedactor(map[string][]byte{"ANTHROPIC_API_KEY": key})
	for _, width := range []int{64, 76} {
		enc := base64.StdEncoding.EncodeToString(append(key, '\n')) // echo $KEY | base64
		var lines []string
		for len(enc) > width {
			lines, enc = append(lines, enc[:width]), enc[width:]
		}
		out := strings.Join(append(lines, enc), "\n") + "\n"
		got := r.String("$ echo $ANTHROPIC_API_KEY | base64\n" + out)
		if !strings.Contains(got, "‹secret:ANTHROPIC_API_KEY›") {
			t.Errorf("width %d not redacted:\n%s", width, got)
		}
		rest := strings.ReplaceAll(strings.SplitN(got, "\n", 2)[1], "\n", "")
		rest = strings.ReplaceAll(rest, "‹secret:ANTHROPIC_API_KEY›", "")
		if dec, _ := base64.StdEncoding.DecodeString(rest); len(dec) > 8 {
			t.Errorf("width %d: %d bytes still decodable: %q", width, len(dec), dec)
		}
	}
}
