package io.sediment.flink;

import java.util.concurrent.CompletableFuture;

/**
 * The hand-over between a {@link CompactTaskReader} and the {@link CompactRewriteOperator} chained
 * to it in the same Flink task: whether a rewrite is running, and a future completed when none is.
 *
 * <p>The operator rewrites off the task thread, so that a checkpoint barrier does not wait for a
 * whole rewrite. The reader must then not ask the enumerator for the next task as soon as it
 * emitted one, or one subtask would take every task (pull-based balancing needs "ask when free").
 * Flink gives a source reader no handle on the operator chained after it; both are opened and run
 * on the task's own thread, so the operator publishes its slot in a thread local when it opens and
 * the reader picks it up on that thread. A reader that finds no slot (chaining disabled) asks after
 * each emit, and an operator whose slot no reader attached to rewrites synchronously, as before.
 *
 * <p>Only the task thread calls these methods.
 */
final class RewriteSlot {

  private static final ThreadLocal<RewriteSlot> OF_TASK_THREAD = new ThreadLocal<>();

  private int running;
  private boolean readerAttached;
  private CompletableFuture<Void> free = CompletableFuture.completedFuture(null);

  /** Publishes {@code slot} to the reader of the task running on this thread. */
  static void publish(RewriteSlot slot) {
    OF_TASK_THREAD.set(slot);
  }

  /** Withdraws the slot published on this thread, if it is {@code slot}. */
  static void withdraw(RewriteSlot slot) {
    if (OF_TASK_THREAD.get() == slot) {
      OF_TASK_THREAD.remove();
    }
  }

  /** The slot of the rewrite operator chained in this thread's task, attached; or null. */
  static RewriteSlot attachToTaskThread() {
    RewriteSlot slot = OF_TASK_THREAD.get();
    if (slot != null) {
      slot.readerAttached = true;
    }
    return slot;
  }

  /** Whether a reader waits for this slot: only then may the operator rewrite asynchronously. */
  boolean readerAttached() {
    return readerAttached;
  }

  void started() {
    if (running++ == 0) {
      free = new CompletableFuture<>();
    }
  }

  void ended() {
    if (--running == 0) {
      free.complete(null);
    }
  }

  boolean isFree() {
    return running == 0;
  }

  /** Completed when no rewrite runs. */
  CompletableFuture<Void> whenFree() {
    return free;
  }
}
