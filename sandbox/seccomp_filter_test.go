package sandbox

import (
	"encoding/binary"
	"testing"

	netbpf "golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// seccompVerdict runs the set-id filter in golang.org/x/net/bpf's interpreter on one syscall
// and returns what the kernel would do with it. The interpreter loads words big-endian, so the
// seccomp_data given to it is laid out big-endian: the words the filter reads are the same.
func seccompVerdict(t *testing.T, arch uint32, nr uint32, args ...uint32) uint32 {
	t.Helper()
	prog, err := setidFilter()
	if err != nil {
		t.Fatal(err)
	}
	insts := make([]netbpf.Instruction, len(prog))
	for i, f := range prog {
		insts[i] = netbpf.RawInstruction{Op: f.Code, Jt: f.Jt, Jf: f.Jf, K: f.K}.Disassemble()
	}
	vm, err := netbpf.NewVM(insts)
	if err != nil {
		t.Fatalf("the filter is not valid classic BPF: %v", err)
	}
	data := make([]byte, 64) // struct seccomp_data
	binary.BigEndian.PutUint32(data[seccompNr:], nr)
	binary.BigEndian.PutUint32(data[seccompArch:], arch)
	for i, a := range args {
		binary.BigEndian.PutUint32(data[seccompArg(i):], a)
	}
	v, err := vm.Run(data)
	if err != nil {
		t.Fatal(err)
	}
	return uint32(v)
}

// TestSetidFilterVerdicts checks the filter's decisions without installing it: what a foreign
// ABI (i386's int 0x80 on x86-64) asks is refused whatever it is, set-id modes are refused on
// the syscalls that set a mode and on open only when it creates, openat2 fails with ENOSYS,
// and everything else passes. The escape tests run the installed filter against real syscalls.
func TestSetidFilterVerdicts(t *testing.T) {
	t.Parallel()
	if seccompAuditArch == 0 {
		t.Skip("no filter for this architecture")
	}
	eperm, enosys, allow := uint32(unix.SECCOMP_RET_ERRNO|uint32(unix.EPERM)), uint32(unix.SECCOMP_RET_ERRNO|uint32(unix.ENOSYS)), uint32(unix.SECCOMP_RET_ALLOW)
	native := uint32(seccompAuditArch)
	foreign := uint32(unix.AUDIT_ARCH_I386)
	if native == foreign {
		foreign = unix.AUDIT_ARCH_X86_64
	}
	fchmodat := uint32(unix.SYS_FCHMODAT)
	openat := uint32(unix.SYS_OPENAT)
	for _, c := range []struct {
		name string
		arch uint32
		nr   uint32
		args []uint32
		want uint32
	}{
		{"fchmodat 04755", native, fchmodat, []uint32{0, 0, 0o4755}, eperm},
		{"fchmodat 02755", native, fchmodat, []uint32{0, 0, 0o2755}, eperm},
		{"fchmodat 0755", native, fchmodat, []uint32{0, 0, 0o755}, allow},
		{"openat O_CREAT 04755", native, openat, []uint32{0, 0, unix.O_CREAT | unix.O_WRONLY, 0o4755}, eperm},
		{"openat O_TMPFILE 04755", native, openat, []uint32{0, 0, unix.O_TMPFILE | unix.O_RDWR, 0o4755}, eperm},
		{"openat without O_CREAT, mode garbage", native, openat, []uint32{0, 0, unix.O_RDONLY, 0o4755}, allow},
		{"openat2", native, uint32(unix.SYS_OPENAT2), nil, enosys},
		{"io_uring_setup", native, uint32(unix.SYS_IO_URING_SETUP), nil, eperm},
		{"getpid", native, uint32(unix.SYS_GETPID), nil, allow},
		{"a foreign ABI's getpid", foreign, uint32(unix.SYS_GETPID), nil, eperm},
		{"a foreign ABI's chmod (i386 15) 04755", foreign, 15, []uint32{0, 0o4755}, eperm},
	} {
		if got := seccompVerdict(t, c.arch, c.nr, c.args...); got != c.want {
			t.Errorf("%s: %#x, want %#x", c.name, got, c.want)
		}
	}
	if seccompX32 {
		if got := seccompVerdict(t, native, 0x40000000|uint32(unix.SYS_GETPID)); got != eperm {
			t.Errorf("an x32 syscall: %#x, want EPERM", got)
		}
	}
}
