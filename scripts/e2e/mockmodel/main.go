// Command mockmodel is a loopback stand-in for the model APIs of Claude
// Code (Anthropic Messages), Codex (OpenAI Responses) and Gemini CLI
// (generateContent), so the real agent CLIs can be run end to end
// without a network (scripts/e2e/run.sh, docs/testing.md).
//
// The model asks the agent to run one command with the agent's own shell
// tool; after the result comes back it ends the turn. With -repeat it
// asks for the same command once more, when the file -resume names
// exists (the driver approves the first refusal in between). -delay
// holds the first ask back, as a real model's answer takes a while. Every tool
// result is appended to -record as a JSON line ({"api", "n", "output"}),
// and every request to -log when set.
//
// It is not linked into cordon.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"
)

type server struct {
	command string
	repeat  bool
	resume  string
	record  string
	reqlog  string
	delay   time.Duration

	mu   sync.Mutex
	seen map[string]bool
}

func main() {
	s := &server{seen: map[string]bool{}}
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on")
	portfile := flag.String("portfile", "", "write the port here once listening")
	flag.StringVar(&s.command, "command", "echo hi", "the command the model asks the agent to run")
	flag.BoolVar(&s.repeat, "repeat", false, "ask for the command a second time, once -resume exists")
	flag.StringVar(&s.resume, "resume", "", "file whose existence lets the repeat go ahead")
	flag.StringVar(&s.record, "record", "", "append each tool result here (JSON lines)")
	flag.StringVar(&s.reqlog, "log", "", "append each request here")
	flag.DurationVar(&s.delay, "delay", 0, "wait this long before the first ask (an agent's own start-up, a shell snapshot, settles)")
	flag.Parse()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	if *portfile != "" {
		port := ln.Addr().(*net.TCPAddr).Port
		if err := os.WriteFile(*portfile, []byte(fmt.Sprint(port)), 0o644); err != nil {
			log.Fatal(err)
		}
	}
	log.Fatal(http.Serve(ln, s))
}

// ServeHTTP sends each request to its API by path.
func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.logRequest(r, body)
	p := r.URL.Path
	switch {
	case strings.HasSuffix(p, "/messages/count_tokens"):
		writeJSON(w, map[string]any{"input_tokens": 10})
	case strings.HasSuffix(p, "/messages"):
		s.anthropic(w, body)
	case strings.HasSuffix(p, "/responses"):
		s.openai(w, body)
	case strings.HasSuffix(p, ":countTokens"):
		writeJSON(w, map[string]any{"totalTokens": 10})
	case strings.HasSuffix(p, ":generateContent"), strings.HasSuffix(p, ":streamGenerateContent"):
		s.gemini(w, body, strings.HasSuffix(p, ":streamGenerateContent"))
	case strings.HasSuffix(p, "/models"):
		writeJSON(w, map[string]any{"data": []any{}, "models": []any{}})
	default:
		http.NotFound(w, r)
	}
}

func (s *server) logRequest(r *http.Request, body []byte) {
	if s.reqlog == "" {
		return
	}
	f, err := os.OpenFile(s.reqlog, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "%s %s\n%s\n\n", r.Method, r.URL, body)
}

// next says what the model does once it has seen n results, the newest
// with the given id: ask for the command (true) or end the turn.
func (s *server) next(api string, n int, id, output string) bool {
	if n > 0 {
		s.keep(api, n, id, output)
	}
	if n == 0 {
		time.Sleep(s.delay)
		return true
	}
	if n == 1 && s.repeat {
		s.waitResume()
		return true
	}
	return false
}

// keep records a tool result once (an agent may send its history again).
func (s *server) keep(api string, n int, id, output string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seen[id] || s.record == "" {
		return
	}
	s.seen[id] = true
	line, _ := json.Marshal(map[string]any{"api": api, "n": n, "output": output})
	f, err := os.OpenFile(s.record, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		log.Print(err)
		return
	}
	defer f.Close()
	f.Write(append(line, '\n'))
}

// waitResume waits up to two minutes for the resume file.
func (s *server) waitResume() {
	for i := 0; i < 1200 && s.resume != ""; i++ {
		if _, err := os.Stat(s.resume); err == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// sse writes one server-sent event; an empty name writes data only.
func sse(w http.ResponseWriter, name string, v any) {
	data, _ := json.Marshal(v)
	if name != "" {
		fmt.Fprintf(w, "event: %s\n", name)
	}
	fmt.Fprintf(w, "data: %s\n\n", data)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

func startSSE(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
}
