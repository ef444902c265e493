package main

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// anthropicRequest is the part of a Messages API request the mock reads.
type anthropicRequest struct {
	Stream   bool                    `json:"stream"`
	Tools    []struct{ Name string } `json:"tools"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

type anthropicBlock struct {
	Type      string          `json:"type"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

// anthropic answers Claude Code: a tool_use of Bash while the command is
// due, then end_turn. Requests without the Bash tool (titles, summaries)
// get a short text.
func (s *server) anthropic(w http.ResponseWriter, body []byte) {
	var req anthropicRequest
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	content := []map[string]any{{"type": "text", "text": "done"}}
	stop := "end_turn"
	if hasTool(req.Tools, "Bash") {
		n, id, output := anthropicResults(req)
		if s.next("anthropic", n, id, output) {
			content = []map[string]any{{
				"type":  "tool_use",
				"id":    fmt.Sprintf("toolu_mock%d", n+1),
				"name":  "Bash",
				"input": map[string]any{"command": s.command, "description": "run the command"},
			}}
			stop = "tool_use"
		}
	}
	if !req.Stream {
		writeJSON(w, anthropicMessage(content, stop))
		return
	}
	anthropicStream(w, content, stop)
}

func hasTool(tools []struct{ Name string }, name string) bool {
	for _, t := range tools {
		if t.Name == name {
			return true
		}
	}
	return false
}

// anthropicResults counts the tool results in the conversation and
// returns the newest one's id and text.
func anthropicResults(req anthropicRequest) (n int, id, output string) {
	for _, m := range req.Messages {
		var blocks []anthropicBlock
		if json.Unmarshal(m.Content, &blocks) != nil {
			continue
		}
		for _, b := range blocks {
			if b.Type != "tool_result" {
				continue
			}
			n++
			id, output = b.ToolUseID, resultText(b.Content)
			if b.IsError {
				output = "is_error: " + output
			}
		}
	}
	return n, id, output
}

// resultText is a tool result's text: a string, or its text blocks.
func resultText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct{ Text string }
	if json.Unmarshal(raw, &parts) == nil {
		for _, p := range parts {
			s += p.Text
		}
		return s
	}
	return string(raw)
}

func anthropicMessage(content []map[string]any, stop string) map[string]any {
	return map[string]any{
		"id": "msg_mock", "type": "message", "role": "assistant",
		"model": "claude-mock", "content": content,
		"stop_reason": stop, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 10, "output_tokens": 10},
	}
}

// anthropicStream sends a message as the streaming events Claude Code
// reads: message_start, each block's start, delta and stop, message_delta
// with the stop reason, message_stop.
func anthropicStream(w http.ResponseWriter, content []map[string]any, stop string) {
	startSSE(w)
	start := anthropicMessage([]map[string]any{}, "")
	start["stop_reason"] = nil
	sse(w, "message_start", map[string]any{"type": "message_start", "message": start})
	for i, b := range content {
		first, delta := map[string]any{}, map[string]any{}
		for k, v := range b {
			first[k] = v
		}
		if b["type"] == "tool_use" {
			input, _ := json.Marshal(b["input"])
			first["input"] = map[string]any{}
			delta = map[string]any{"type": "input_json_delta", "partial_json": string(input)}
		} else {
			first["text"] = ""
			delta = map[string]any{"type": "text_delta", "text": b["text"]}
		}
		sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": first})
		sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": delta})
		sse(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	sse(w, "message_delta", map[string]any{
		"type":  "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": 10},
	})
	sse(w, "message_stop", map[string]any{"type": "message_stop"})
}
