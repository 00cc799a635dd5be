/* arena.c: see arena.h. */
#include "arena.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char *ws(const char *p) {
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') p++;
    return p;
}

/* The end of the JSON value starting at p (strings with escapes, nested containers), or NULL. */
static const char *value_end(const char *p) {
    int depth = 0;
    do {
        if (*p == '"') {
            for (p++; *p != '"'; p++) {
                if (!*p || (*p == '\\' && !*++p)) return NULL;
            }
            p++;
        } else if (*p == '{' || *p == '[') {
            depth++, p++;
        } else if (*p == '}' || *p == ']') {
            if (--depth < 0) return NULL;
            p++;
        } else if (depth) {
            if (!*p) return NULL;
            p++;
        } else {
            while (*p && !strchr(",}] \t\r\n", *p)) p++;
        }
    } while (depth > 0);
    return p;
}

arena_json arena_member(const char *json, const char *key) {
    arena_json none = {NULL, 0};
    size_t klen = strlen(key);
    const char *p = ws(json);
    if (*p != '{') return none;
    for (p = ws(p + 1); *p == '"'; p = ws(p + 1)) {
        const char *k = p + 1, *end = value_end(p), *v;
        if (!end) return none;
        p = ws(end);
        if (*p != ':') return none;
        v = ws(p + 1);
        p = value_end(v);
        if (!p) return none;
        if ((size_t)(end - 1 - k) == klen && memcmp(k, key, klen) == 0) {
            arena_json found = {v, (size_t)(p - v)};
            return found;
        }
        p = ws(p);
        if (*p != ',') return none;
    }
    return none;
}

/* Walks the array to element `index` (or to its end when index < 0); returns the element count seen. */
static long walk(arena_json array, long index, arena_json *found) {
    const char *p, *end;
    long i = 0;
    if (!array.text || *array.text != '[') return -1;
    for (p = ws(array.text + 1); *p && *p != ']'; i++) {
        end = value_end(p);
        if (!end) return -1;
        if (i == index) {
            found->text = p;
            found->len = (size_t)(end - p);
            return i;
        }
        p = ws(end);
        if (*p == ',') p = ws(p + 1);
    }
    return i;
}

long arena_length(arena_json array) {
    arena_json unused;
    return walk(array, -1, &unused);
}

arena_json arena_item(arena_json array, long index) {
    arena_json found = {NULL, 0};
    if (index >= 0) walk(array, index, &found);
    return found;
}

int arena_is_string(arena_json value, const char *text) {
    size_t n = strlen(text);
    return value.text && value.len == n + 2 && value.text[0] == '"' && memcmp(value.text + 1, text, n) == 0;
}

int arena_copy(arena_json value, char *out, size_t cap) {
    if (!value.text || value.len + 1 > cap) return -1;
    memcpy(out, value.text, value.len);
    out[value.len] = '\0';
    return 0;
}

void arena_log(const char *format, ...) {
    va_list args;
    va_start(args, format);
    vfprintf(stderr, format, args);
    va_end(args);
    fputc('\n', stderr);
    fflush(stderr);
}

/* One line of any length into *buf; 0 at the end of input. */
static int read_line(FILE *in, char **buf, size_t *cap) {
    size_t len = 0;
    for (;;) {
        if (len + 2 >= *cap) {
            size_t bigger = *cap ? *cap * 2 : 1 << 16;
            char *grown = realloc(*buf, bigger);
            if (!grown) return 0;
            *buf = grown;
            *cap = bigger;
        }
        if (!fgets(*buf + len, (int)(*cap - len), in)) return len > 0;
        len += strlen(*buf + len);
        if ((*buf)[len - 1] == '\n') return 1;
    }
}

int arena_serve(FILE *in, FILE *out, const char *name, const char *version, arena_decide_fn decide,
                arena_event_fn on_start, arena_event_fn on_end, void *user) {
    char *line = NULL, *action = malloc(1 << 16);
    size_t cap = 0;
    int status = 0;
    if (!action) return -1;
    while (read_line(in, &line, &cap)) {
        arena_json type = arena_member(line, "type");
        if (arena_is_string(type, "hello")) {
            fprintf(out, "{\"type\":\"hello\",\"protocol\":1,\"name\":\"%s\",\"version\":\"%s\"}\n", name, version);
        } else if (arena_is_string(type, "request")) {
            arena_json id = arena_member(line, "id");
            if (decide(line, action, 1 << 16, user) != 0) strcpy(action, "null");
            fprintf(out, "{\"id\":%.*s,\"action\":%s}\n", (int)id.len, id.text ? id.text : "null", action);
        } else if (arena_is_string(type, "start")) {
            if (on_start) on_start(line, user);
        } else if (arena_is_string(type, "end")) {
            if (on_end) on_end(line, user);
        } else if (arena_is_string(type, "shutdown")) {
            break;
        } /* unknown messages are ignored: later protocol versions may add some */
        if (fflush(out) != 0) {
            status = -1;
            break;
        }
    }
    free(line);
    free(action);
    return status;
}
