// A random bot for every arena game: each request lists every legal action; it picks one.
#include <chrono>
#include <cstdlib>
#include <random>

#include "arena.hpp"

class RandomBot : public arena::Bot {
public:
    explicit RandomBot(unsigned long long seed) : rng_(seed) {}
    void start(const arena::json& message) override {
        arena::log("random-cpp: a game of " + message.value("game", std::string("?")) + " in seat " +
                   std::to_string(message.value("seat", -1)));
    }
    arena::json decide(const arena::json& request) override {
        const auto& legal = request.at("legal");
        std::uniform_int_distribution<std::size_t> pick(0, legal.size() - 1);
        return legal.at(pick(rng_));
    }

private:
    std::mt19937_64 rng_;
};

int main() {
    const char* seed = std::getenv("ARENA_SEED");
    unsigned long long base = seed ? std::strtoull(seed, nullptr, 10)
                                   : static_cast<unsigned long long>(std::chrono::steady_clock::now().time_since_epoch().count());
    RandomBot bot(base);
    arena::run(bot, "random-cpp", "1.0");
    return 0;
}
