package executor

import (
	"context"
	"fmt"
	"time"
)

// agentTools are the subagent tools: spawn_agent and wait_agent.
func agentTools() []tool {
	return []tool{
		newTool("spawn_agent", "Start a subagent: a child session that works on task in the background in its own copy of the workspace, with a scope no wider than yours (optional allow/deny globs). Returns a handle at once; with wait: true it waits and returns the child's final report. Otherwise its report arrives as a notification, or use wait_agent.", runSpawnAgent),
		newTool("wait_agent", "Wait for a subagent started with spawn_agent (by handle) and return its final report; timeout_s bounds the wait (default 600).", runWaitAgent),
	}
}

// runSpawnAgent runs the tool with its arguments decoded.
var runSpawnAgent = decoding(spawnAgent)

func spawnAgent(ctx context.Context, tc toolCtx, a *spawnAgentArgs) toolOutput {
	if a.Task == "" {
		return failed("task is empty")
	}
	handle, err := tc.x.Spawn(SpawnRequest{Parent: tc.session, Branch: tc.branch, CallID: tc.callID, Task: a.Task, Allow: a.Scope.Allow, Deny: a.Scope.Deny, Turn: tc.turn})
	if err != nil {
		return failed("spawn_agent: " + err.Error())
	}
	if a.Wait {
		return waitReport(ctx, tc, handle, 0)
	}
	return toolOutput{text: fmt.Sprintf("started subagent %s in the background. Keep working; wait for its report with wait_agent {\"handle\": %q}, or it arrives as a notification when it ends.", handle, handle)}
}

// runWaitAgent runs the tool with its arguments decoded.
var runWaitAgent = decoding(waitAgent)

func waitAgent(ctx context.Context, tc toolCtx, a *waitAgentArgs) toolOutput {
	return waitReport(ctx, tc, a.Handle, time.Duration(a.TimeoutS)*time.Second)
}

// waitReport waits for a subagent's report and renders it for the model.
func waitReport(ctx context.Context, tc toolCtx, handle string, timeout time.Duration) toolOutput {
	if timeout <= 0 {
		timeout = 10 * time.Minute
	}
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	rep, err := tc.x.WaitAgent(wctx, tc.session, handle)
	if err != nil {
		if ctx.Err() == nil && wctx.Err() != nil {
			return failed(fmt.Sprintf("subagent %s is still working after %s; wait again or keep working", handle, timeout))
		}
		return failed("wait_agent: " + err.Error())
	}
	if rep.Failure != "" {
		return toolOutput{text: fmt.Sprintf("subagent %s failed after %d steps: %s\n%s", handle, rep.Steps, rep.Failure, rep.Response), isError: true}
	}
	return toolOutput{text: fmt.Sprintf("subagent %s finished after %d steps; its report:\n%s", handle, rep.Steps, rep.Response)}
}
