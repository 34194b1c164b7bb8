package io.sediment.sim;

import io.sediment.maintenance.ExpireSnapshots;
import io.sediment.maintenance.RemoveOrphanFiles;
import java.util.List;
import java.util.Random;
import java.util.function.LongSupplier;

/**
 * Snapshot expiry (keeping 1 to 3 snapshots) and orphan removal. Orphan removal deletes every
 * unreferenced file older than the oldest work in flight ({@code inFlightSince}): the jobs' files
 * that markers protect must survive it whatever their age.
 */
final class MaintenanceActor implements Actor {

  private final SimTable sim;
  private final Random rnd;
  private final LongSupplier inFlightSince;

  MaintenanceActor(SimTable sim, Random rnd, LongSupplier inFlightSince) {
    this.sim = sim;
    this.rnd = rnd;
    this.inFlightSince = inFlightSince;
  }

  @Override
  public String name() {
    return "maintenance";
  }

  @Override
  public List<String> enabled() {
    return List.of("expire", "remove-orphans");
  }

  @Override
  public String step(String step) {
    if (step.equals("expire")) {
      int keep = 1 + rnd.nextInt(3);
      ExpireSnapshots.Result r = new ExpireSnapshots(sim.table()).retainMax(keep).execute();
      return "expired " + r.expiredSnapshots() + " keeping " + keep;
    }
    long since = inFlightSince.getAsLong();
    // File times come from the kernel's coarse clock, up to a tick behind currentTimeMillis.
    long olderThan = (since == Long.MAX_VALUE ? System.currentTimeMillis() : since) - 20;
    List<?> removed = new RemoveOrphanFiles(sim.table()).olderThan(olderThan).execute();
    return "removed " + removed.size() + " orphan file(s)";
  }
}
