package arena

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

type first struct{ starts, ends int }

func (b *first) Start(*Message)                          { b.starts++ }
func (b *first) End(*Message)                            { b.ends++ }
func (b *first) Decide(request *Message) json.RawMessage { return request.Legal[0] }

func TestSession(t *testing.T) {
	input := strings.Join([]string{
		`{"type":"hello","protocol":1,"referee":"arena"}`,
		`{"type":"start","game":"kolpa","seat":1,"players":["a","b"]}`,
		`{"type":"mystery","x":[1]}`,
		`{"type":"request","id":3,"legal":[{"announce":5}, "pass"],"clock":{"remaining_ms":1000}}`,
		`{"type":"end","result":{"points":[1,2]}}`,
		`{"type":"shutdown"}`,
		`{"type":"request","id":4,"legal":[1]}`,
	}, "\n") + "\n"
	var out bytes.Buffer
	bot := &first{}
	if err := Serve(strings.NewReader(input), &out, bot, "t", "1"); err != nil {
		t.Fatal(err)
	}
	want := `{"name":"t","protocol":1,"type":"hello","version":"1"}` + "\n" + `{"action":{"announce":5},"id":3}` + "\n"
	if out.String() != want {
		t.Fatalf("got %q, want %q", out.String(), want)
	}
	if bot.starts != 1 || bot.ends != 1 {
		t.Fatalf("starts %d ends %d", bot.starts, bot.ends)
	}
}

func TestEndOfInputWithoutNewline(t *testing.T) {
	var out bytes.Buffer
	if err := Serve(strings.NewReader(`{"type":"request","id":9007199254740991,"legal":["5"]}`), &out, &first{}, "t", "1"); err != nil {
		t.Fatal(err)
	}
	if out.String() != `{"action":"5","id":9007199254740991}`+"\n" {
		t.Fatalf("got %q", out.String())
	}
}
