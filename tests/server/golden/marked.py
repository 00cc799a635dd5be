import os, sys, random
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import arenabot
SEAT = sys.argv[1]
rng = random.Random(7)
count = [0]
def decide(request):
    count[0] += 1
    sys.stderr.write(f"STDERR-MARK-{SEAT} step {count[0]}\n"); sys.stderr.flush()
    if count[0] == 2:
        sys.stdout.write(f"DETAIL-MARK-{SEAT} is not an answer\n"); sys.stdout.flush()
    return rng.choice(request["legal"])
arenabot.run(decide, name="marked" + SEAT, version="1")
