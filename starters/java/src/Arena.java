import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The arena protocol (protocol.md): answer the referee's hello, then for each game a start, the
 * requests (each answered with one action) and an end with the result; return on shutdown or at the
 * end of input. Log with Arena.log (stderr): stdout carries the protocol only.
 */
public final class Arena {
    private Arena() {}

    /** What a bot implements; start and end may do nothing. Messages are JSON objects (Json.parse). */
    public interface Bot {
        default void start(Map<String, Object> message) {}
        Object decide(Map<String, Object> request);
        default void end(Map<String, Object> message) {}
    }

    public static void log(String text) {
        System.err.println(text);
        System.err.flush();
    }

    /** Serve the referee on stdin and stdout. */
    public static void run(Bot bot, String name, String version) throws IOException {
        PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), false, "UTF-8");
        serve(new InputStreamReader(System.in, StandardCharsets.UTF_8), out, bot, name, version);
    }

    /** The protocol loop on any reader and stream (the tests give it buffers). */
    @SuppressWarnings("unchecked")
    public static void serve(Reader input, PrintStream out, Bot bot, String name, String version) throws IOException {
        BufferedReader reader = new BufferedReader(input, 1 << 16);
        String line;
        while ((line = reader.readLine()) != null) {
            if (line.trim().isEmpty()) continue;
            Map<String, Object> message;
            try {
                Object parsed = Json.parse(line);
                if (!(parsed instanceof Map)) continue;
                message = (Map<String, Object>) parsed;
            } catch (IllegalArgumentException problem) {
                log("arena: cannot read the referee's line: " + problem.getMessage());
                continue;
            }
            Object type = message.get("type");
            if ("hello".equals(type)) {
                Map<String, Object> hello = new LinkedHashMap<>();
                hello.put("type", "hello");
                hello.put("protocol", 1);
                hello.put("name", name);
                hello.put("version", version);
                send(out, hello);
            } else if ("start".equals(type)) {
                bot.start(message);
            } else if ("request".equals(type)) {
                Object action = bot.decide(message);
                Map<String, Object> answer = new LinkedHashMap<>();
                answer.put("id", message.get("id"));
                answer.put("action", action);
                send(out, answer);
            } else if ("end".equals(type)) {
                bot.end(message);
            } else if ("shutdown".equals(type)) {
                return;
            } // unknown messages are ignored: later protocol versions may add some
        }
    }

    private static void send(PrintStream out, Map<String, Object> message) {
        out.print(Json.write(message));
        out.print('\n');
        out.flush();
    }

    /** The request's legal actions. */
    @SuppressWarnings("unchecked")
    public static List<Object> legal(Map<String, Object> request) {
        return (List<Object>) request.get("legal");
    }
}
