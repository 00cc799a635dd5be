//! The arena protocol (protocol.md): answer the referee's hello, then for each game a `start`, the
//! requests (each answered with one action) and an `end` with the result; exit on `shutdown` or at
//! the end of input. Log to stderr with `eprintln!`: stdout carries the protocol only.

use crate::json::{parse, Value};
use std::io::{self, BufRead, Write};

pub trait Bot {
    /// A game begins: `message` has game, seat, players, options, time_control.
    fn start(&mut self, _message: &Value) {}
    /// Decide now: `request` has view, legal (every legal action), clock, events. Return one action.
    fn decide(&mut self, request: &Value) -> Value;
    /// The game is over: `message` has the result.
    fn end(&mut self, _message: &Value) {}
}

/// Serve the referee on stdin/stdout until shutdown.
pub fn run<B: Bot>(bot: &mut B, name: &str, version: &str) -> io::Result<()> {
    let stdin = io::stdin();
    let stdout = io::stdout();
    serve(stdin.lock(), stdout.lock(), bot, name, version)
}

/// The protocol loop on any reader and writer (the tests give it buffers).
pub fn serve<R: BufRead, W: Write, B: Bot>(input: R, mut output: W, bot: &mut B, name: &str, version: &str) -> io::Result<()> {
    for line in input.lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let message = match parse(&line) {
            Ok(message) => message,
            Err(problem) => {
                eprintln!("arena: cannot read the referee's line: {}", problem);
                continue;
            }
        };
        match message.get("type").and_then(Value::as_str) {
            Some("hello") => {
                let hello = Value::Object(vec![
                    ("type".to_string(), Value::string("hello")),
                    ("protocol".to_string(), Value::int(1)),
                    ("name".to_string(), Value::string(name)),
                    ("version".to_string(), Value::string(version)),
                ]);
                writeln!(output, "{}", hello.to_json())?;
                output.flush()?;
            }
            Some("start") => bot.start(&message),
            Some("request") => {
                let action = bot.decide(&message);
                let id = message.get("id").cloned().unwrap_or(Value::Null);
                let answer = Value::Object(vec![("id".to_string(), id), ("action".to_string(), action)]);
                writeln!(output, "{}", answer.to_json())?;
                output.flush()?;
            }
            Some("end") => bot.end(&message),
            Some("shutdown") => return Ok(()),
            _ => {} // unknown messages are ignored: later protocol versions may add some
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    struct First {
        starts: usize,
        ends: usize,
    }

    impl Bot for First {
        fn start(&mut self, _message: &Value) {
            self.starts += 1;
        }
        fn decide(&mut self, request: &Value) -> Value {
            request.get("legal").and_then(Value::as_array).unwrap()[0].clone()
        }
        fn end(&mut self, _message: &Value) {
            self.ends += 1;
        }
    }

    #[test]
    fn plays_a_session() {
        let input = concat!(
            "{\"type\":\"hello\",\"protocol\":1,\"referee\":\"arena\"}\n",
            "{\"type\":\"start\",\"game\":\"kolpa\",\"seat\":0}\n",
            "{\"type\":\"mystery\"}\n",
            "{\"type\":\"request\",\"id\":3,\"legal\":[{\"announce\":5},\"pass\"]}\n",
            "{\"type\":\"end\",\"result\":{}}\n",
            "{\"type\":\"shutdown\"}\n",
            "{\"type\":\"request\",\"id\":4,\"legal\":[1]}\n",
        );
        let mut out = Vec::new();
        let mut bot = First { starts: 0, ends: 0 };
        serve(input.as_bytes(), &mut out, &mut bot, "t", "1").unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            text,
            "{\"type\":\"hello\",\"protocol\":1,\"name\":\"t\",\"version\":\"1\"}\n{\"id\":3,\"action\":{\"announce\":5}}\n"
        );
        assert_eq!((bot.starts, bot.ends), (1, 1));
    }

    #[test]
    fn ends_at_end_of_input() {
        let mut out = Vec::new();
        let mut bot = First { starts: 0, ends: 0 };
        serve("{\"type\":\"hello\"}\r\n".as_bytes(), &mut out, &mut bot, "t", "1").unwrap();
        assert!(String::from_utf8(out).unwrap().starts_with("{\"type\":\"hello\""));
    }
}
