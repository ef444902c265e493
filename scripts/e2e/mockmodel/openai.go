package main

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// openaiRequest is the part of a Responses API request the mock reads.
type openaiRequest struct {
	Tools []openaiTool    `json:"tools"`
	Input json.RawMessage `json:"input"`
}

type openaiTool struct {
	Type       string `json:"type"`
	Name       string `json:"name"`
	Parameters struct {
		Properties map[string]struct {
			Type string `json:"type"`
		} `json:"properties"`
	} `json:"parameters"`
}

// shellTools are Codex's shell tools, the one it offers first is used.
var shellTools = []string{"exec_command", "shell_command", "shell", "local_shell"}

// openai answers Codex over the Responses API: a function call of its
// shell tool while the command is due, then a message.
func (s *server) openai(w http.ResponseWriter, body []byte) {
	var req openaiRequest
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	item := map[string]any{
		"type": "message", "role": "assistant", "id": "msg_mock",
		"content": []any{map[string]any{"type": "output_text", "text": "done"}},
	}
	if tool, ok := shellTool(req.Tools); ok {
		n, id, output := openaiResults(req.Input)
		if s.next("openai", n, id, output) {
			item = s.openaiCall(tool, n+1)
		}
	}
	startSSE(w)
	resp := map[string]any{"id": "resp_mock", "object": "response", "status": "in_progress", "output": []any{}}
	sse(w, "response.created", map[string]any{"type": "response.created", "response": resp})
	sse(w, "response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": 0, "item": item})
	sse(w, "response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item})
	resp = map[string]any{
		"id": "resp_mock", "object": "response", "status": "completed", "output": []any{item},
		"usage": map[string]any{"input_tokens": 10, "output_tokens": 10, "total_tokens": 20,
			"input_tokens_details": map[string]any{"cached_tokens": 0}, "output_tokens_details": map[string]any{"reasoning_tokens": 0}},
	}
	sse(w, "response.completed", map[string]any{"type": "response.completed", "response": resp})
}

func shellTool(tools []openaiTool) (openaiTool, bool) {
	for _, name := range shellTools {
		for _, t := range tools {
			if t.Name == name || t.Type == name {
				return t, true
			}
		}
	}
	return openaiTool{}, false
}

// openaiCall is the output item that calls the shell tool with the
// command, in the arguments the tool's schema names.
func (s *server) openaiCall(tool openaiTool, n int) map[string]any {
	id := fmt.Sprintf("call_mock%d", n)
	argv := []string{"bash", "-lc", s.command}
	if tool.Type == "local_shell" {
		return map[string]any{"type": "local_shell_call", "id": "lsh_mock", "call_id": id, "status": "completed",
			"action": map[string]any{"type": "exec", "command": argv}}
	}
	args := map[string]any{}
	props := tool.Parameters.Properties
	switch {
	case props["cmd"].Type != "":
		args["cmd"] = s.command
	case props["command"].Type == "array":
		args["command"] = argv
	default:
		args["command"] = s.command
	}
	encoded, _ := json.Marshal(args)
	return map[string]any{"type": "function_call", "id": "fc_mock", "call_id": id, "name": tool.Name, "arguments": string(encoded)}
}

// openaiResults counts the function call outputs in the input and returns
// the newest one's call id and output.
func openaiResults(input json.RawMessage) (n int, id, output string) {
	var items []struct {
		Type   string          `json:"type"`
		CallID string          `json:"call_id"`
		Output json.RawMessage `json:"output"`
	}
	json.Unmarshal(input, &items)
	for _, it := range items {
		switch it.Type {
		case "function_call_output", "local_shell_call_output", "custom_tool_call_output":
			n++
			id, output = it.CallID, resultText(it.Output)
		}
	}
	return n, id, output
}
