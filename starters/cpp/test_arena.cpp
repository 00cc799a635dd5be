// The kit's tests: `make test` builds and runs them; exit status 1 on a failure.
#include <iostream>
#include <sstream>

#include "arena.hpp"

static int failures = 0;

static void check(bool ok, const std::string& what) {
    std::cout << (ok ? "ok   " : "FAIL ") << what << '\n';
    failures += !ok;
}

struct First : arena::Bot {
    int starts = 0, ends = 0;
    void start(const arena::json&) override { ++starts; }
    arena::json decide(const arena::json& request) override { return request.at("legal").at(0); }
    void end(const arena::json&) override { ++ends; }
};

int main() {
    std::istringstream in(
        "{\"type\":\"hello\",\"protocol\":1,\"referee\":\"arena\"}\n"
        "{\"type\":\"start\",\"game\":\"kolpa\",\"seat\":0}\n"
        "not json\n"
        "{\"type\":\"mystery\"}\n"
        "{\"type\":\"request\",\"id\":3,\"legal\":[{\"announce\":5},\"5\"]}\r\n"
        "{\"type\":\"end\",\"result\":{}}\n"
        "{\"type\":\"shutdown\"}\n"
        "{\"type\":\"request\",\"id\":4,\"legal\":[1]}\n");
    std::ostringstream out;
    First bot;
    arena::serve(in, out, bot, "t", "1");
    check(out.str() == "{\"name\":\"t\",\"protocol\":1,\"type\":\"hello\",\"version\":\"1\"}\n"
                       "{\"action\":{\"announce\":5},\"id\":3}\n",
          "hello, one answer (an integer stays an integer), nothing after shutdown: " + out.str());
    check(bot.starts == 1 && bot.ends == 1, "start and end are passed on");
    return failures ? 1 : 0;
}
