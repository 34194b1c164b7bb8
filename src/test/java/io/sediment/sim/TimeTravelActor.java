package io.sediment.sim;

import io.sediment.maintenance.Tags;
import io.sediment.manifest.TagManager;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Time travel: reads a retained older snapshot ({@code scan.snapshot-id}) as users do and compares
 * it with what they read when it was the latest. A snapshot reads the same for as long as it is
 * kept, whatever ran since: compactions, expiry of other snapshots, orphan removal, schema changes,
 * crashes and restores. It also tags such snapshots, reads its tags ({@code scan.tag-name}) and
 * deletes them: a tag reads as its snapshot did when it was the latest for as long as the tag is
 * there, also after expiry retired the snapshot.
 */
final class TimeTravelActor implements Actor {

  private final SimTable sim;
  private final Random rnd;
  private final Map<Long, List<String>> readAtSnapshot;
  private final Map<String, Long> tags = new TreeMap<>();

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
    if (readAtSnapshot.isEmpty()) {
      return List.of();
    }
    return tags.isEmpty()
        ? List.of("read", "read", "tag")
        : List.of("read", "read", "tag", "read-tag", "read-tag", "delete-tag");
  }

  @Override
  public String step(String step) throws Exception {
    switch (step) {
      case "read-tag":
        {
          String name = pick(new ArrayList<>(tags.keySet()));
          long id = tags.get(name);
          compare(
              "tag " + name + " of snapshot " + id,
              sim.userRead(sim.latest().copy(Map.of("scan.tag-name", name))),
              readAtSnapshot.get(id));
          return "read tag " + name + " of snapshot " + id + " as when it was the latest";
        }
      case "delete-tag":
        {
          String name = pick(new ArrayList<>(tags.keySet()));
          Tags.Deleted d = new Tags(sim.table()).delete(List.of(name));
          long id = tags.remove(name);
          if (new Tags(sim.table()).all().containsKey(name)) {
            throw new AssertionError("tag " + name + " is still there after its deletion");
          }
          return "deleted tag "
              + name
              + " of snapshot "
              + id
              + " and "
              + d.dataFiles()
              + " data file(s) only it kept";
        }
      default:
        break;
    }
    Set<Long> retained = new TreeSet<>(sim.table().snapshotManager().listIds());
    retained.retainAll(readAtSnapshot.keySet());
    if (retained.isEmpty()) {
      return "no snapshot read before is retained";
    }
    long id = pick(new ArrayList<>(retained));
    if (step.equals("tag")) {
      String name = "t" + id + "-" + rnd.nextInt(1000);
      if (tags.containsKey(name)) {
        return "tag " + name + " exists";
      }
      TagManager.Tag tag = new Tags(sim.table()).create(name, OptionalLong.of(id));
      tags.put(name, tag.snapshot().id());
      return "tagged snapshot " + id + " as " + name;
    }
    List<String> read =
        sim.userRead(sim.latest().copy(Map.of("scan.snapshot-id", String.valueOf(id))));
    compare("snapshot " + id, read, readAtSnapshot.get(id));
    return "read snapshot " + id + ": " + read.size() + " row(s), as when it was the latest";
  }

  private <T> T pick(List<T> from) {
    return from.get(rnd.nextInt(from.size()));
  }

  private static void compare(String what, List<String> now, List<String> then) {
    List<String> read = new ArrayList<>(now);
    read.sort(null);
    if (!read.equals(then)) {
      throw new AssertionError(
          what
              + " reads otherwise than when it was the latest\n   now:  "
              + read
              + "\n   then: "
              + then);
    }
  }
}
