// arena.hpp: the arena bot protocol (protocol.md) in C++17, with nlohmann/json (Debian's
// nlohmann-json3-dev, header only). Derive from arena::Bot, override decide (and start/end if you
// like), call arena::run. Log with arena::log (stderr): stdout carries the protocol only.
#pragma once

#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

namespace arena {

using json = nlohmann::json;

class Bot {
public:
    virtual ~Bot() = default;
    // A game begins: message has game, seat, players, options, time_control.
    virtual void start(const json& message) { (void)message; }
    // Decide now: request has view, legal (every legal action), clock, events. Return one action.
    virtual json decide(const json& request) = 0;
    // The game is over: message has the result.
    virtual void end(const json& message) { (void)message; }
};

inline void log(const std::string& text) { std::cerr << text << std::endl; }

// The protocol loop on any streams (the tests give it string streams); returns at shutdown or end of input.
inline void serve(std::istream& in, std::ostream& out, Bot& bot, const std::string& name, const std::string& version) {
    std::string line;
    while (std::getline(in, line)) {
        json message = json::parse(line, nullptr, false);
        if (message.is_discarded() || !message.is_object()) {
            if (!line.empty() && line != "\r") log("arena: cannot read the referee's line");
            continue;
        }
        const std::string type = message.value("type", "");
        if (type == "hello") {
            out << json{{"type", "hello"}, {"protocol", 1}, {"name", name}, {"version", version}}.dump() << '\n' << std::flush;
        } else if (type == "request") {
            json answer = {{"id", message["id"]}, {"action", bot.decide(message)}};
            out << answer.dump() << '\n' << std::flush;
        } else if (type == "start") {
            bot.start(message);
        } else if (type == "end") {
            bot.end(message);
        } else if (type == "shutdown") {
            return;
        }  // unknown messages are ignored: later protocol versions may add some
    }
}

inline void run(Bot& bot, const std::string& name, const std::string& version) {
    std::ios::sync_with_stdio(false);
    serve(std::cin, std::cout, bot, name, version);
}

}  // namespace arena
