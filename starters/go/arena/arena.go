// Package arena speaks the arena bot protocol (protocol.md) over stdin and stdout.
//
// Messages are decoded with encoding/json; every action stays a json.RawMessage, so an element of
// "legal" is sent back exactly as the referee wrote it (an integer stays an integer). Log with Log
// (stderr): stdout carries the protocol only.
package arena

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// Message is any message from the referee; members a message does not have stay empty.
type Message struct {
	Type    string                     `json:"type"`
	ID      json.RawMessage            `json:"id"`
	GameID  string                     `json:"game_id"`
	Game    string                     `json:"game"`
	Seat    int                        `json:"seat"`
	Players []string                   `json:"players"`
	Step    int                        `json:"step"`
	View    json.RawMessage            `json:"view"`
	Legal   []json.RawMessage          `json:"legal"`
	Clock   map[string]json.RawMessage `json:"clock"`
	Events  []json.RawMessage          `json:"events"`
	Options map[string]json.RawMessage `json:"options"`
	Result  json.RawMessage            `json:"result"`
}

// Bot decides; Start and End may do nothing.
type Bot interface {
	Start(message *Message)
	Decide(request *Message) json.RawMessage
	End(message *Message)
}

// Log writes a line to stderr, which the referee keeps the last lines of.
func Log(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
}

// Run serves the referee on stdin and stdout until shutdown or the end of input.
func Run(bot Bot, name, version string) error {
	return Serve(os.Stdin, os.Stdout, bot, name, version)
}

// Serve is the protocol loop on any reader and writer (the tests give it buffers).
func Serve(input io.Reader, output io.Writer, bot Bot, name, version string) error {
	reader := bufio.NewReaderSize(input, 1<<16)
	writer := bufio.NewWriter(output)
	send := func(value interface{}) error {
		line, err := json.Marshal(value)
		if err != nil {
			return err
		}
		if _, err := writer.Write(append(line, '\n')); err != nil {
			return err
		}
		return writer.Flush()
	}
	for {
		line, err := reader.ReadBytes('\n') // lines of any length
		if len(line) > 0 {
			var message Message
			if jsonErr := json.Unmarshal(line, &message); jsonErr != nil {
				Log("arena: cannot read the referee's line: %v", jsonErr)
			} else {
				switch message.Type {
				case "hello":
					if err := send(map[string]interface{}{"type": "hello", "protocol": 1, "name": name, "version": version}); err != nil {
						return err
					}
				case "start":
					bot.Start(&message)
				case "request":
					action := bot.Decide(&message)
					if err := send(map[string]json.RawMessage{"id": message.ID, "action": action}); err != nil {
						return err
					}
				case "end":
					bot.End(&message)
				case "shutdown":
					return nil
				}
				// unknown messages are ignored: later protocol versions may add some
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
