import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.StringReader;
import java.util.Map;

/** The kit's tests, with no JUnit: `java -cp classes:test-classes KitTest` exits 1 on a failure. */
public final class KitTest {
    static int failures = 0;

    static void check(boolean ok, String what) {
        if (!ok) {
            failures++;
            System.err.println("FAIL " + what);
        } else {
            System.out.println("ok   " + what);
        }
    }

    static boolean refused(String text) {
        try {
            Json.parse(text);
            return false;
        } catch (IllegalArgumentException expected) {
            return true;
        }
    }

    public static void main(String[] args) throws Exception {
        String request = "{\"type\":\"request\",\"id\":7,\"legal\":[[\"G3\",\"B1\"],{\"bid\":-2.5e3},true,null,\"x\\\"y\"]}";
        check(Json.write(Json.parse(request)).equals(request), "a request round-trips unchanged");
        check(Json.write(Json.parse("5")).equals("5") && Json.write(Json.parse("\"5\"")).equals("\"5\""), "integers stay integers");
        check("a\n\u00e9\t".equals(Json.parse("\"a\\n\\u00e9\\t\"")), "escapes are decoded");
        check(Json.write("\u0001\"").equals("\"\\u0001\\\"\""), "control characters are escaped");
        check(Json.write(Json.parse(" { \"a\" : [ ] , \"b\" : { } } ")).equals("{\"a\":[],\"b\":{}}"), "whitespace and empty containers");
        boolean all = true;
        for (String bad : new String[] {"", "{", "[1,]", "{\"a\" 1}", "tru", "1 2", "\"abc", "-", "1.", "[1]x"}) {
            all &= refused(bad);
        }
        check(all, "bad JSON is refused");

        String input = String.join("\n",
            "{\"type\":\"hello\",\"protocol\":1,\"referee\":\"arena\"}",
            "{\"type\":\"start\",\"game\":\"kolpa\",\"seat\":0}",
            "{\"type\":\"mystery\"}",
            "{\"type\":\"request\",\"id\":3,\"legal\":[{\"announce\":5},\"pass\"]}",
            "{\"type\":\"end\",\"result\":{}}",
            "{\"type\":\"shutdown\"}",
            "{\"type\":\"request\",\"id\":4,\"legal\":[1]}") + "\n";
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        final int[] counts = new int[2];
        Arena.Bot first = new Arena.Bot() {
            public void start(Map<String, Object> m) { counts[0]++; }
            public Object decide(Map<String, Object> r) { return Arena.legal(r).get(0); }
            public void end(Map<String, Object> m) { counts[1]++; }
        };
        Arena.serve(new StringReader(input), new PrintStream(buffer, true, "UTF-8"), first, "t", "1");
        String out = buffer.toString("UTF-8");
        check(out.equals("{\"type\":\"hello\",\"protocol\":1,\"name\":\"t\",\"version\":\"1\"}\n{\"id\":3,\"action\":{\"announce\":5}}\n"),
              "a session: hello, one answer, nothing after shutdown (got " + out + ")");
        check(counts[0] == 1 && counts[1] == 1, "start and end are passed on");
        System.exit(failures == 0 ? 0 : 1);
    }
}
