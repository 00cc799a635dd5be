import java.util.List;
import java.util.Map;
import java.util.Random;

/** A random bot for every arena game: each request lists every legal action; it picks one. The build
 * (`arena build`, the server) makes bot.jar with Main as its entry point: keep this class name. */
public final class Main implements Arena.Bot {
    private final Random random;

    Main(long seed) { random = new Random(seed); }

    @Override
    public void start(Map<String, Object> message) {
        Arena.log("random-java: a game of " + message.get("game") + " in seat " + message.get("seat"));
    }

    @Override
    public Object decide(Map<String, Object> request) {
        List<Object> legal = Arena.legal(request);
        return legal.get(random.nextInt(legal.size()));
    }

    public static void main(String[] args) throws Exception {
        String seed = System.getenv("ARENA_SEED");
        long base = seed != null && seed.matches("-?[0-9]+") ? Long.parseLong(seed) : System.nanoTime();
        Arena.run(new Main(base), "random-java", "1.0");
    }
}
