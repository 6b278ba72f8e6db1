package sandbox

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// setidBits are the set-user-id and set-group-id mode bits.
const setidBits = unix.S_ISUID | unix.S_ISGID

// Offsets in struct seccomp_data: the syscall number, the architecture, and the low 32 bits
// of argument i (little-endian).
const (
	seccompNr   = 0
	seccompArch = 4
)

// seccompArg is the offset of the low word of syscall argument i.
func seccompArg(i int) uint32 { return uint32(16 + 8*i) }

// modeRule says where a syscall that can make a set-id file carries its mode (and, for
// open, its flags: the mode only counts when creating).
type modeRule struct {
	nr    uintptr
	mode  int // index of the mode argument
	flags int // index of the flags argument, -1 when the call always creates or changes mode
}

// errnoRule refuses a syscall outright.
type errnoRule struct {
	nr    uintptr
	errno unix.Errno
}

// bpf is a small assembler for classic BPF with forward jumps to labels.
//
// Why not github.com/elastic/go-seccomp-bpf (compared at v1.6.0): its Policy.Assemble sends a
// syscall of another architecture's ABI to the policy's default action (filter.go: "If the
// loaded arch ID is not equal p.arch.ID, jump to the final Ret instruction"). exo's default is
// to allow, so an x86-64 program could make i386 syscalls (int 0x80), whose numbers the filter
// does not check, and chmod a file set-uid; setidFilter refuses every foreign-ABI syscall
// instead (TestSetidFilterVerdicts). Its errno action is EPERM (Program.Ret adds it to
// ActionErrno; another errno is a raw value its action names do not know), where openat2 must
// fail with ENOSYS for libraries to fall back to openat, whose flags the filter can read. Why
// not golang.org/x/net/bpf's assembler: its instructions take jump offsets as numbers and it
// has no labels; resolving the labels is what this type does, the encoding itself is
// unix.SockFilter's four fields. Its interpreter runs the filter in the tests.
type bpf struct {
	prog   []unix.SockFilter
	labels map[string]int
	fixups []fixup
}

// fixup is a jump to patch once its label is known.
type fixup struct {
	at     int
	jt, jf string
}

// stmt appends a statement.
func (b *bpf) stmt(code uint16, k uint32) {
	b.prog = append(b.prog, unix.SockFilter{Code: code, K: k})
}

// jump appends a conditional jump to the labels jt and jf ("" is the next instruction).
func (b *bpf) jump(code uint16, k uint32, jt, jf string) {
	b.fixups = append(b.fixups, fixup{at: len(b.prog), jt: jt, jf: jf})
	b.prog = append(b.prog, unix.SockFilter{Code: code, K: k})
}

// label names the next instruction.
func (b *bpf) label(name string) { b.labels[name] = len(b.prog) }

// resolve patches the jumps; every jump goes forward and within 255 instructions.
func (b *bpf) resolve() error {
	off := func(at int, name string) (uint8, error) {
		if name == "" {
			return 0, nil
		}
		to, ok := b.labels[name]
		if !ok || to <= at || to-at-1 > 255 {
			return 0, fmt.Errorf("seccomp filter: bad jump to %q", name)
		}
		return uint8(to - at - 1), nil
	}
	for _, f := range b.fixups {
		var err error
		if b.prog[f.at].Jt, err = off(f.at, f.jt); err != nil {
			return err
		}
		if b.prog[f.at].Jf, err = off(f.at, f.jf); err != nil {
			return err
		}
	}
	return nil
}

// setidFilter builds the filter: no syscall may create a file with, or give a file, the
// set-user-id or set-group-id bit (a program made in the workspace must never run with
// privilege, inside or later from the host); openat2, whose flags the filter cannot read,
// fails with ENOSYS so that libraries fall back to openat; io_uring, which would do all of it
// without syscalls, is refused; and a syscall of another architecture's ABI is refused.
func setidFilter() ([]unix.SockFilter, error) {
	if seccompAuditArch == 0 {
		return nil, fmt.Errorf("seccomp: no filter for this architecture")
	}
	b := &bpf{labels: map[string]int{}}
	ld := uint16(unix.BPF_LD | unix.BPF_W | unix.BPF_ABS)
	jeq := uint16(unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K)
	jset := uint16(unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K)
	ret := uint16(unix.BPF_RET | unix.BPF_K)
	b.stmt(ld, seccompArch)
	b.jump(jeq, seccompAuditArch, "", "eperm")
	b.stmt(ld, seccompNr)
	if seccompX32 {
		b.jump(uint16(unix.BPF_JMP|unix.BPF_JGE|unix.BPF_K), 0x40000000, "eperm", "")
	}
	for i, r := range modeRules {
		b.jump(jeq, uint32(r.nr), fmt.Sprintf("mode%d", i), "")
	}
	for i, r := range errnoRules {
		b.jump(jeq, uint32(r.nr), fmt.Sprintf("errno%d", i), "")
	}
	b.stmt(ret, unix.SECCOMP_RET_ALLOW)
	for i, r := range modeRules {
		b.label(fmt.Sprintf("mode%d", i))
		if r.flags >= 0 {
			b.stmt(ld, seccompArg(r.flags))
			b.jump(jset, unix.O_CREAT|(unix.O_TMPFILE&^unix.O_DIRECTORY), "", "allow")
		}
		b.stmt(ld, seccompArg(r.mode))
		b.jump(jset, setidBits, "eperm", "allow")
	}
	for i, r := range errnoRules {
		b.label(fmt.Sprintf("errno%d", i))
		b.stmt(ret, unix.SECCOMP_RET_ERRNO|uint32(r.errno))
	}
	b.label("allow")
	b.stmt(ret, unix.SECCOMP_RET_ALLOW)
	b.label("eperm")
	b.stmt(ret, unix.SECCOMP_RET_ERRNO|uint32(unix.EPERM))
	return b.prog, b.resolve()
}

// applySeccomp installs the set-id filter on the calling thread (no_new_privs must be set),
// which then execs the program: the filter binds it and everything it starts.
func applySeccomp() error {
	prog, err := setidFilter()
	if err != nil {
		return err
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	if err := unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&fprog)), 0, 0); err != nil {
		return fmt.Errorf("install the seccomp filter: %w", err)
	}
	return nil
}

// probeSeccomp reports whether the kernel can install the set-id filter: seccomp filters
// with the errno action are available and the filter builds for this architecture. Nothing is
// installed in exo's own process (a thread ended to drop a filter would take the children it
// started with Pdeathsig along); the helper fails loudly if the install itself is refused.
func probeSeccomp() (bool, string) {
	if seccompAuditArch == 0 {
		return false, "seccomp: no filter for this architecture"
	}
	if _, err := setidFilter(); err != nil {
		return false, err.Error()
	}
	action := uint32(unix.SECCOMP_RET_ERRNO)
	const getActionAvail = 2 // SECCOMP_GET_ACTION_AVAIL
	if _, _, e := unix.Syscall(unix.SYS_SECCOMP, getActionAvail, 0, uintptr(unsafe.Pointer(&action))); e != 0 {
		return false, fmt.Sprintf("seccomp: filters unavailable: %v", e)
	}
	return true, ""
}
