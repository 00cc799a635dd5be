/*
 * arena.h: the arena bot protocol (protocol.md) in C99, no libraries.
 *
 * arena_run() answers the referee's hello, then for each game calls on_start, decide for every
 * request (decide writes its action's JSON text into a buffer) and on_end; it returns on shutdown
 * or at the end of input. Messages are not decoded into values: arena_member() finds a top-level
 * member's raw JSON text and arena_item() an array's element, enough to send back an element of
 * "legal" exactly as the referee wrote it. Log to stderr (arena_log); stdout carries the protocol.
 */
#ifndef ARENA_H
#define ARENA_H

#include <stddef.h>
#include <stdio.h>

/* A piece of JSON text: `text` points into the message, `len` bytes long (NULL when absent). */
typedef struct {
    const char *text;
    size_t len;
} arena_json;

/* decide: the request line; write the chosen action's JSON text into `out` (a NUL-terminated
 * string of at most `cap` - 1 bytes) and return 0, or return -1 to send null. */
typedef int (*arena_decide_fn)(const char *request, char *out, size_t cap, void *user);
typedef void (*arena_event_fn)(const char *message, void *user);

/* The value of the top-level member `key` of the JSON object `json`. */
arena_json arena_member(const char *json, const char *key);
/* The number of elements of the JSON array `array` (-1 when it is not an array). */
long arena_length(arena_json array);
/* Element `index` of the JSON array `array`. */
arena_json arena_item(arena_json array, long index);
/* Whether `value` is the JSON string `text` (no escapes in `text`). */
int arena_is_string(arena_json value, const char *text);
/* Copy `value` into `out` as a NUL-terminated string; -1 when it does not fit. */
int arena_copy(arena_json value, char *out, size_t cap);
/* printf to stderr, with a newline. */
void arena_log(const char *format, ...);
/* Serve the referee on `in` and `out` until shutdown (0) or an error (-1). */
int arena_serve(FILE *in, FILE *out, const char *name, const char *version, arena_decide_fn decide,
                arena_event_fn on_start, arena_event_fn on_end, void *user);
#define arena_run(name, version, decide, on_start, on_end, user) \
    arena_serve(stdin, stdout, name, version, decide, on_start, on_end, user)

#endif
