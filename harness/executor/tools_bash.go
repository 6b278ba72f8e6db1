package executor

import (
	"context"
	"fmt"
	"strings"
	"time"

	"exo/harness"
	"exo/sandbox"
)

// runBash runs the tool with its arguments decoded.
var runBash = decoding(bash)

func bash(ctx context.Context, tc toolCtx, a *bashArgs) toolOutput {
	if a.Command == "" {
		return failed("command is empty")
	}
	if name, reason := tc.x.h.SecretCommandDenied(a.Command); name != "" {
		_, _ = tc.x.h.AppendOn(tc.session, tc.branch, harness.MustRecord(harness.TypeSecretDenied, harness.ActorHarness,
			harness.SecretDenied{Name: name, Tool: "bash", Reason: reason}))
		return failed("denied: secret " + name + ": " + reason)
	}
	if a.Background {
		return startTask(tc, a.Command)
	}
	eo := harness.ExecOptions{Timeout: time.Duration(a.TimeoutS) * time.Second, CallID: tc.callID, Branch: tc.branch}
	if tc.hold {
		eo.Hold = HoldWait // committed with the call's result
	}
	res, err := tc.x.h.Exec(ctx, tc.session, a.Command, eo)
	if err != nil {
		return failed(err.Error())
	}
	out := harness.ToolResultOf(tc.callID, "bash", res.Result)
	return toolOutput{text: out.Output, exit: out.ExitCode, killed: out.Killed, trunc: out.Truncated, total: out.TotalBytes, artifact: out.Artifact}
}

// startTask runs a command in the background and returns its handle to the model.
func startTask(tc toolCtx, command string) toolOutput {
	ti, err := tc.x.h.StartTask(tc.session, tc.branch, tc.callID, command)
	if err != nil {
		return failed("start background task: " + err.Error())
	}
	return toolOutput{text: fmt.Sprintf("started background task %s (pid %d). Keep working; check it with task_status or task_output, stop it with task_kill. You will be told when it finishes.", ti.ID, ti.Pid)}
}

// runTaskStatus runs the tool with its arguments decoded.
var runTaskStatus = decoding(taskStatus)

func taskStatus(_ context.Context, tc toolCtx, a *taskStatusArgs) toolOutput {
	var list []sandbox.TaskInfo
	if a.TaskID == "" {
		l, err := tc.x.h.Tasks(tc.session)
		if err != nil {
			return failed(err.Error())
		}
		list = l
	} else {
		ti, err := tc.x.h.Task(tc.session, a.TaskID)
		if err != nil {
			return failed(err.Error())
		}
		list = append(list, ti)
	}
	if len(list) == 0 {
		return toolOutput{text: "no background tasks"}
	}
	var b strings.Builder
	for _, ti := range list {
		fmt.Fprintf(&b, "%s\t%s\t%s", ti.ID, ti.State, oneLine(ti.Command, 80))
		if ti.State != sandbox.TaskRunning {
			fmt.Fprintf(&b, "\texit %d %s", ti.ExitCode, ti.KillReason)
		}
		fmt.Fprintf(&b, "\t%d bytes of output\n", ti.TotalBytes)
	}
	return toolOutput{text: b.String()}
}

// runTaskOutput runs the tool with its arguments decoded.
var runTaskOutput = decoding(taskOutput)

func taskOutput(_ context.Context, tc toolCtx, a *taskArgs) toolOutput {
	ti, err := tc.x.h.Task(tc.session, a.TaskID)
	if err != nil {
		return failed(err.Error())
	}
	return toolOutput{text: fmt.Sprintf("[%s %s, %d bytes]\n%s", ti.ID, ti.State, ti.TotalBytes, ti.Output)}
}

// runTaskKill runs the tool with its arguments decoded.
var runTaskKill = decoding(taskKill)

func taskKill(_ context.Context, tc toolCtx, a *taskArgs) toolOutput {
	ti, err := tc.x.h.KillTask(tc.session, a.TaskID)
	if err != nil {
		return failed(err.Error())
	}
	return toolOutput{text: fmt.Sprintf("%s: %s %s", ti.ID, ti.State, ti.KillReason)}
}
