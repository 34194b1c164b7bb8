package io.sediment.flink;

import io.sediment.compact.CompactTask;
import io.sediment.compact.CompactTaskResult;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Faults injected into a compaction job through its {@link CompactListener}. The listener is
 * serialized into the job, so its armed faults live in a static registry keyed by the listener's
 * id, shared by the test and the operators of the MiniCluster in the same JVM. Each fault fires
 * once. Close it after the test.
 */
public final class InjectedFaults implements CompactListener, AutoCloseable {

  private static final long serialVersionUID = 1L;

  private static final Map<String, Armed> REGISTRY = new ConcurrentHashMap<>();

  private static final class Armed {
    final AtomicBoolean failAfterRewrite = new AtomicBoolean();
    final AtomicBoolean failBeforeCommit = new AtomicBoolean();
    final AtomicReference<CountDownLatch> parkAfterRewrite = new AtomicReference<>();
    final AtomicReference<CountDownLatch[]> holdCommit = new AtomicReference<>();
  }

  private final String id;

  private InjectedFaults(String id) {
    this.id = id;
  }

  public static InjectedFaults create() {
    String id = UUID.randomUUID().toString();
    REGISTRY.put(id, new Armed());
    return new InjectedFaults(id);
  }

  private Armed armed() {
    Armed a = REGISTRY.get(id);
    if (a == null) {
      throw new IllegalStateException("Injected faults " + id + " were closed");
    }
    return a;
  }

  /** The rewrite operator throws after a task wrote its outputs, before emitting its result. */
  public InjectedFaults failAfterRewriteOnce() {
    armed().failAfterRewrite.set(true);
    return this;
  }

  /** The committer throws before it commits (a completed checkpoint's windows, or batch). */
  public InjectedFaults failBeforeCommitOnce() {
    armed().failBeforeCommit.set(true);
    return this;
  }

  /**
   * One rewrite operator counts {@code parked} down after a task wrote its outputs, then blocks
   * until its thread is interrupted, as when its task manager goes away: the outputs stay on disk,
   * never reported.
   */
  public InjectedFaults parkAfterRewriteOnce(CountDownLatch parked) {
    armed().parkAfterRewrite.set(parked);
    return this;
  }

  /**
   * The committer, about to commit, counts {@code reached} down and waits for {@code go} once: the
   * test does something while a commit is due.
   */
  public InjectedFaults holdCommitOnce(CountDownLatch reached, CountDownLatch go) {
    armed().holdCommit.set(new CountDownLatch[] {reached, go});
    return this;
  }

  /** Whether every armed fault has fired. */
  public boolean allFired() {
    Armed a = armed();
    return !a.failAfterRewrite.get()
        && !a.failBeforeCommit.get()
        && a.parkAfterRewrite.get() == null;
  }

  @Override
  public void rewritten(CompactTask task, CompactTaskResult result) {
    Armed a = REGISTRY.get(id);
    if (a == null) {
      return;
    }
    CountDownLatch parked = a.parkAfterRewrite.getAndSet(null);
    if (parked != null) {
      parked.countDown();
      try {
        new CountDownLatch(1).await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("Injected fault: parked rewrite interrupted", e);
      }
    }
    if (a.failAfterRewrite.getAndSet(false)) {
      throw new IllegalStateException("Injected fault after the rewrite of " + task);
    }
  }

  @Override
  public void beforeCommit(long checkpointId) {
    Armed a = REGISTRY.get(id);
    if (a == null) {
      return;
    }
    CountDownLatch[] hold = a.holdCommit.getAndSet(null);
    if (hold != null) {
      hold[0].countDown();
      try {
        hold[1].await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("Injected fault: held commit interrupted", e);
      }
    }
    if (a.failBeforeCommit.getAndSet(false)) {
      throw new IllegalStateException("Injected fault before committing " + checkpointId);
    }
  }

  @Override
  public void close() {
    REGISTRY.remove(id);
  }
}
