/* The kit's tests: `make test` builds and runs them; exit status 1 on a failure. */
#include <stdio.h>
#include <string.h>

#include "arena.h"

static int failures;

static void check(int ok, const char *what) {
    printf("%s %s\n", ok ? "ok  " : "FAIL", what);
    failures += !ok;
}

static int first(const char *request, char *out, size_t cap, void *user) {
    (void)user;
    return arena_copy(arena_item(arena_member(request, "legal"), 0), out, cap);
}

static void count(const char *message, void *user) {
    (void)message;
    ++*(int *)user;
}

int main(void) {
    const char *req = "{\"type\":\"request\", \"view\":{\"s\":\"a\\\"]}\"},\"id\":7,"
                      "\"legal\":[[\"G3\",\"B1\"], {\"bid\":-2.5e3},true,null,\"x\\\"y\"]}";
    arena_json legal = arena_member(req, "legal"), id = arena_member(req, "id");
    char buf[64];
    check(arena_length(legal) == 5, "the legal array has 5 elements");
    check(id.len == 1 && id.text[0] == '7', "the id is found after a view with tricky strings");
    check(arena_copy(arena_item(legal, 1), buf, sizeof buf) == 0 && strcmp(buf, "{\"bid\":-2.5e3}") == 0, "an object element, raw");
    check(arena_copy(arena_item(legal, 4), buf, sizeof buf) == 0 && strcmp(buf, "\"x\\\"y\"") == 0, "a string with an escape, raw");
    check(arena_item(legal, 5).text == NULL && arena_length(arena_member(req, "view")) == -1, "out of range; not an array");
    check(arena_member(req, "nothing").text == NULL && arena_member("[1]", "id").text == NULL, "a missing member");
    check(arena_length(arena_member("{\"legal\":[ ]}", "legal")) == 0, "an empty array");
    check(arena_copy(arena_item(legal, 1), buf, 4) == -1, "a value too long for the buffer");

    {
        const char *input = "{\"type\":\"hello\",\"protocol\":1}\n"
                            "{\"type\":\"start\",\"game\":\"kolpa\"}\n"
                            "{\"type\":\"mystery\"}\n"
                            "{\"type\":\"request\",\"id\":3,\"legal\":[{\"announce\":5},\"pass\"]}\n"
                            "{\"type\":\"end\",\"result\":{}}\n"
                            "{\"type\":\"shutdown\"}\n"
                            "{\"type\":\"request\",\"id\":4,\"legal\":[1]}\n";
        char out[512] = {0};
        int events = 0;
        FILE *in = fmemopen((void *)input, strlen(input), "r"), *sink = fmemopen(out, sizeof out - 1, "w");
        check(arena_serve(in, sink, "t", "1", first, count, count, &events) == 0, "a session ends at shutdown");
        fclose(in);
        fclose(sink);
        check(strcmp(out, "{\"type\":\"hello\",\"protocol\":1,\"name\":\"t\",\"version\":\"1\"}\n"
                          "{\"id\":3,\"action\":{\"announce\":5}}\n") == 0, "hello, then one answer");
        check(events == 2, "start and end are passed on");
    }
    return failures ? 1 : 0;
}
