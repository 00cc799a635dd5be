//! A random bot for every arena game: each request lists every legal action; it picks one.
mod arena;
mod json;

use arena::Bot;
use json::Value;

struct RandomBot {
    state: u64,
}

impl RandomBot {
    fn next(&mut self) -> u64 {
        // SplitMix64
        self.state = self.state.wrapping_add(0x9E3779B97F4A7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58476D1CE4E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D049BB133111EB);
        z ^ (z >> 31)
    }
}

impl Bot for RandomBot {
    fn start(&mut self, message: &Value) {
        let game = message.get("game").and_then(Value::as_str).unwrap_or("?");
        let seat = message.get("seat").and_then(Value::as_i64).unwrap_or(-1);
        eprintln!("random-rust: a game of {} in seat {}", game, seat);
    }
    fn decide(&mut self, request: &Value) -> Value {
        let legal = request.get("legal").and_then(Value::as_array).cloned().unwrap_or_default();
        if legal.is_empty() {
            return Value::Null;
        }
        let pick = (self.next() % legal.len() as u64) as usize;
        legal[pick].clone()
    }
}

fn main() {
    let seed = std::env::var("ARENA_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(1)
    });
    let mut bot = RandomBot { state: seed };
    if let Err(problem) = arena::run(&mut bot, "random-rust", "1.0") {
        eprintln!("random-rust: {}", problem);
    }
}
