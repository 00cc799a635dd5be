// A random bot for every arena game: each request lists every legal action; it picks one.
package main

import (
	"encoding/json"
	"math/rand"
	"os"
	"strconv"
	"time"

	"bot/arena"
)

type randomBot struct{ rng *rand.Rand }

func (b *randomBot) Start(message *arena.Message) {
	arena.Log("random-go: a game of %s in seat %d", message.Game, message.Seat)
}
func (b *randomBot) End(*arena.Message) {}
func (b *randomBot) Decide(request *arena.Message) json.RawMessage {
	return request.Legal[b.rng.Intn(len(request.Legal))]
}

func main() {
	seed := time.Now().UnixNano()
	if s, err := strconv.ParseInt(os.Getenv("ARENA_SEED"), 10, 64); err == nil {
		seed = s
	}
	if err := arena.Run(&randomBot{rand.New(rand.NewSource(seed))}, "random-go", "1.0"); err != nil {
		arena.Log("random-go: %v", err)
	}
}
