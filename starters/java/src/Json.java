import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small JSON reader and writer for the arena protocol, with no libraries. Values are null, Boolean,
 * Json.Num (a number kept as its text, so an integer sent back stays an integer), String,
 * List&lt;Object&gt; and Map&lt;String, Object&gt; (members in their order).
 */
public final class Json {
    private Json() {}

    /** A JSON number, kept as written. */
    public static final class Num {
        public final String text;
        public Num(String text) { this.text = text; }
        public Num(long value) { this.text = Long.toString(value); }
        public long asLong() { return Long.parseLong(text); }
        public double asDouble() { return Double.parseDouble(text); }
        @Override public boolean equals(Object o) { return o instanceof Num && ((Num) o).text.equals(text); }
        @Override public int hashCode() { return text.hashCode(); }
        @Override public String toString() { return text; }
    }

    public static Object parse(String text) {
        Reader reader = new Reader(text);
        Object value = reader.value(0);
        reader.ws();
        if (reader.pos != text.length()) throw reader.error("trailing characters");
        return value;
    }

    public static String write(Object value) {
        StringBuilder out = new StringBuilder();
        write(value, out);
        return out.toString();
    }

    @SuppressWarnings("unchecked")
    private static void write(Object value, StringBuilder out) {
        if (value == null) {
            out.append("null");
        } else if (value instanceof Boolean || value instanceof Num) {
            out.append(value);
        } else if (value instanceof Integer || value instanceof Long) {
            out.append(value);
        } else if (value instanceof String) {
            writeString((String) value, out);
        } else if (value instanceof List) {
            out.append('[');
            boolean first = true;
            for (Object item : (List<Object>) value) {
                if (!first) out.append(',');
                first = false;
                write(item, out);
            }
            out.append(']');
        } else if (value instanceof Map) {
            out.append('{');
            boolean first = true;
            for (Map.Entry<String, Object> e : ((Map<String, Object>) value).entrySet()) {
                if (!first) out.append(',');
                first = false;
                writeString(e.getKey(), out);
                out.append(':');
                write(e.getValue(), out);
            }
            out.append('}');
        } else {
            throw new IllegalArgumentException("not a JSON value: " + value.getClass());
        }
    }

    private static void writeString(String s, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"': out.append("\\\""); break;
                case '\\': out.append("\\\\"); break;
                case '\n': out.append("\\n"); break;
                case '\r': out.append("\\r"); break;
                case '\t': out.append("\\t"); break;
                default:
                    if (c < 0x20) out.append(String.format("\\u%04x", (int) c));
                    else out.append(c);
            }
        }
        out.append('"');
    }

    private static final class Reader {
        final String s;
        int pos;

        Reader(String s) { this.s = s; }

        IllegalArgumentException error(String what) {
            return new IllegalArgumentException(what + " at character " + pos);
        }

        void ws() {
            while (pos < s.length() && " \t\r\n".indexOf(s.charAt(pos)) >= 0) pos++;
        }

        char peek() {
            if (pos >= s.length()) throw error("unexpected end");
            return s.charAt(pos);
        }

        void expect(char c) {
            if (peek() != c) throw error("expected '" + c + "'");
            pos++;
        }

        Object literal(String word, Object value) {
            if (!s.startsWith(word, pos)) throw error("unexpected character");
            pos += word.length();
            return value;
        }

        Object value(int depth) {
            if (depth > 512) throw error("nested too deep");
            ws();
            char c = peek();
            switch (c) {
                case 'n': return literal("null", null);
                case 't': return literal("true", Boolean.TRUE);
                case 'f': return literal("false", Boolean.FALSE);
                case '"': return string();
                case '[': {
                    pos++;
                    List<Object> items = new ArrayList<>();
                    ws();
                    if (peek() == ']') { pos++; return items; }
                    while (true) {
                        items.add(value(depth + 1));
                        ws();
                        if (peek() == ',') { pos++; continue; }
                        expect(']');
                        return items;
                    }
                }
                case '{': {
                    pos++;
                    Map<String, Object> members = new LinkedHashMap<>();
                    ws();
                    if (peek() == '}') { pos++; return members; }
                    while (true) {
                        ws();
                        if (peek() != '"') throw error("expected a string key");
                        String key = string();
                        ws();
                        expect(':');
                        members.put(key, value(depth + 1));
                        ws();
                        if (peek() == ',') { pos++; continue; }
                        expect('}');
                        return members;
                    }
                }
                default:
                    if (c == '-' || (c >= '0' && c <= '9')) return number();
                    throw error("unexpected character");
            }
        }

        int digits() {
            int start = pos;
            while (pos < s.length() && Character.isDigit(s.charAt(pos)) && s.charAt(pos) < 128) pos++;
            return pos - start;
        }

        Num number() {
            int start = pos;
            if (s.charAt(pos) == '-') pos++;
            if (digits() == 0) throw error("expected a digit");
            if (pos < s.length() && s.charAt(pos) == '.') {
                pos++;
                if (digits() == 0) throw error("expected a digit after '.'");
            }
            if (pos < s.length() && (s.charAt(pos) == 'e' || s.charAt(pos) == 'E')) {
                pos++;
                if (pos < s.length() && (s.charAt(pos) == '+' || s.charAt(pos) == '-')) pos++;
                if (digits() == 0) throw error("expected a digit in the exponent");
            }
            return new Num(s.substring(start, pos));
        }

        String string() {
            pos++; // the opening quote
            StringBuilder out = new StringBuilder();
            while (true) {
                char c = peek();
                pos++;
                if (c == '"') return out.toString();
                if (c != '\\') { out.append(c); continue; }
                char e = peek();
                pos++;
                switch (e) {
                    case '"': out.append('"'); break;
                    case '\\': out.append('\\'); break;
                    case '/': out.append('/'); break;
                    case 'b': out.append('\b'); break;
                    case 'f': out.append('\f'); break;
                    case 'n': out.append('\n'); break;
                    case 'r': out.append('\r'); break;
                    case 't': out.append('\t'); break;
                    case 'u':
                        if (pos + 4 > s.length()) throw error("short \\u escape");
                        try {
                            out.append((char) Integer.parseInt(s.substring(pos, pos + 4), 16));
                        } catch (NumberFormatException ex) {
                            throw error("bad \\u escape");
                        }
                        pos += 4;
                        break;
                    default: throw error("unknown escape");
                }
            }
        }
    }
}
