package io.sediment.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;

/**
 * Time travel: reads a retained older snapshot ({@code scan.snapshot-id}) as users do and compares
 * it with what they read when it was the latest. A snapshot reads the same for as long as it is
 * kept, whatever ran since: compactions, expiry of other snapshots, orphan removal, schema changes,
 * crashes and restores.
 */
final class TimeTravelActor implements Actor {

  private final SimTable sim;
  private final Random rnd;
  private final Map<Long, List<String>> readAtSnapshot;

  TimeTravelActor(SimTable sim, Random rnd, Map<Long, List<String>> readAtSnapshot) {
    this.sim = sim;
    this.rnd = rnd;
    this.readAtSnapshot = readAtSnapshot;
  }

  @Override
  public String name() {
    return "time-travel";
  }

  @Override
  public List<String> enabled() {
    return readAtSnapshot.isEmpty() ? List.of() : List.of("read");
  }

  @Override
  public String step(String step) throws Exception {
    Set<Long> retained = new TreeSet<>(sim.table().snapshotManager().listIds());
    retained.retainAll(readAtSnapshot.keySet());
    if (retained.isEmpty()) {
      return "no snapshot read before is retained";
    }
    List<Long> ids = new ArrayList<>(retained);
    long id = ids.get(rnd.nextInt(ids.size()));
    List<String> read =
        new ArrayList<>(
            sim.userRead(sim.latest().copy(Map.of("scan.snapshot-id", String.valueOf(id)))));
    read.sort(null);
    List<String> then = readAtSnapshot.get(id);
    if (!read.equals(then)) {
      throw new AssertionError(
          "snapshot "
              + id
              + " reads otherwise than when it was the latest\n   now:  "
              + read
              + "\n   then: "
              + then);
    }
    return "read snapshot " + id + ": " + read.size() + " row(s), as when it was the latest";
  }
}
