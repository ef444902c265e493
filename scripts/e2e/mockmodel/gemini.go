package main

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// geminiRequest is the part of a generateContent request the mock reads.
type geminiRequest struct {
	Contents []struct {
		Parts []struct {
			FunctionResponse *struct {
				ID       string          `json:"id"`
				Name     string          `json:"name"`
				Response json.RawMessage `json:"response"`
			} `json:"functionResponse"`
		} `json:"parts"`
	} `json:"contents"`
	Tools []struct {
		FunctionDeclarations []struct {
			Name string `json:"name"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
	GenerationConfig struct {
		ResponseMimeType string `json:"responseMimeType"`
	} `json:"generationConfig"`
}

// gemini answers Gemini CLI: a functionCall of run_shell_command while
// the command is due, then text. Its side requests that want JSON (the
// model router, the next-speaker check) get one object that answers both.
func (s *server) gemini(w http.ResponseWriter, body []byte, stream bool) {
	var req geminiRequest
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	part := map[string]any{"text": "done"}
	if req.GenerationConfig.ResponseMimeType == "application/json" {
		part["text"] = `{"reasoning":"mock","model_choice":"flash","next_speaker":"user"}`
	}
	if req.hasShell() {
		n, id, output := geminiResults(req)
		if s.next("gemini", n, id, output) {
			part = map[string]any{"functionCall": map[string]any{
				"id":   fmt.Sprintf("call_mock%d", n+1),
				"name": "run_shell_command",
				"args": map[string]any{"command": s.command, "description": "run the command"},
			}}
		}
	}
	resp := map[string]any{
		"candidates": []any{map[string]any{
			"content":      map[string]any{"role": "model", "parts": []any{part}},
			"finishReason": "STOP", "index": 0,
		}},
		"usageMetadata": map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 10, "totalTokenCount": 20},
		"modelVersion":  "gemini-mock",
	}
	if !stream {
		writeJSON(w, resp)
		return
	}
	startSSE(w)
	sse(w, "", resp)
}

func (req geminiRequest) hasShell() bool {
	for _, t := range req.Tools {
		for _, f := range t.FunctionDeclarations {
			if f.Name == "run_shell_command" {
				return true
			}
		}
	}
	return false
}

// geminiResults counts the function responses in the conversation and
// returns the newest one's id and response.
func geminiResults(req geminiRequest) (n int, id, output string) {
	for _, c := range req.Contents {
		for _, p := range c.Parts {
			if r := p.FunctionResponse; r != nil {
				n++
				id, output = r.ID, resultText(r.Response)
				var o struct{ Output string }
				if json.Unmarshal(r.Response, &o) == nil && o.Output != "" {
					output = o.Output
				}
			}
		}
	}
	if id == "" {
		id = fmt.Sprint("gemini-", n)
	}
	return n, id, output
}
