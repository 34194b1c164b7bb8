package io.sediment.flink.sql;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The splits a streaming read's readers hold (given out or restored, not finished), by id, each as
 * {@link StreamSplit#heldAs} and with the reader holding it: below all of them lies a consumer's
 * position. A reader reports the splits it is given or restored and those it finishes; a report can
 * be overtaken by a checkpoint or lost with its reader, so after a reset what its reader does not
 * report again before it registers is dropped: after a reset of one reader (a regional failover),
 * that reader's splits; after a restore of the whole read, the checkpoint's splits once every
 * reader registered. Not thread-safe: the enumerator's coordinator thread alone uses it.
 */
final class HeldSplits {

  /** The holder of a split restored from the enumerator's checkpoint: not recorded there. */
  private static final int UNKNOWN = -1;

  private final Map<String, Long> held = new HashMap<>();
  private final Map<String, Integer> holder = new HashMap<>();

  /** Held splits waiting for their reader's report, with the reader (or {@link #UNKNOWN}). */
  private final Map<String, Long> unconfirmed = new HashMap<>();

  private final Map<String, Integer> unconfirmedHolder = new HashMap<>();

  /** What a restored enumerator's checkpoint said readers held: each until reported again. */
  static HeldSplits restored(Map<String, Long> checkpointed) {
    HeldSplits out = new HeldSplits();
    checkpointed.forEach(
        (id, heldAs) -> {
          out.unconfirmed.put(id, heldAs);
          out.unconfirmedHolder.put(id, UNKNOWN);
        });
    return out;
  }

  /** Split {@code id} was given to reader {@code subtask}. */
  void given(String id, long heldAs, int subtask) {
    held.put(id, heldAs);
    holder.put(id, subtask);
  }

  /** Reader {@code subtask} reports the splits it holds now and those it finished. */
  void reported(int subtask, Map<String, Long> holding, List<String> finished) {
    holding.forEach(
        (id, heldAs) -> {
          unconfirmed.remove(id);
          unconfirmedHolder.remove(id);
          held.put(id, heldAs);
          holder.put(id, subtask);
        });
    finished.forEach(this::remove);
  }

  /**
   * Reader {@code subtask} was reset (restored alone from the last completed checkpoint): the
   * splits given to it after that checkpoint ({@code returned}) are given out again; the others it
   * held count until it reports them, or registers without.
   */
  void readerReset(int subtask, Collection<String> returned) {
    returned.forEach(this::remove);
    List<String> its = new ArrayList<>();
    holder.forEach(
        (id, s) -> {
          if (s == subtask) {
            its.add(id);
          }
        });
    for (String id : its) {
      unconfirmed.put(id, held.remove(id));
      unconfirmedHolder.put(id, subtask);
      holder.remove(id);
    }
  }

  /**
   * Reader {@code subtask} registered, having reported what it restored: its unconfirmed splits are
   * done, and with {@code everyReader} registered so are those of a restored checkpoint. Returns
   * how many were dropped.
   */
  int readerRegistered(int subtask, boolean everyReader) {
    List<String> done = new ArrayList<>();
    unconfirmedHolder.forEach(
        (id, s) -> {
          if (s == subtask || (everyReader && s == UNKNOWN)) {
            done.add(id);
          }
        });
    done.forEach(this::remove);
    return done.size();
  }

  /** Every held split's {@link StreamSplit#heldAs}, confirmed or not. */
  List<Long> values() {
    List<Long> out = new ArrayList<>(held.values());
    out.addAll(unconfirmed.values());
    return out;
  }

  /** Every held split by id, for the enumerator's checkpoint. */
  Map<String, Long> toMap() {
    Map<String, Long> out = new LinkedHashMap<>(unconfirmed);
    out.putAll(held);
    return out;
  }

  private void remove(String id) {
    held.remove(id);
    holder.remove(id);
    unconfirmed.remove(id);
    unconfirmedHolder.remove(id);
  }
}
