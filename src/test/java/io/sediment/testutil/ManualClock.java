package io.sediment.testutil;

import java.io.Serializable;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;
import java.util.random.RandomGenerator;

/**
 * A clock that moves only when a test moves it: give it to a table ({@code Table#withClock}, {@code
 * FileSystemCatalog#withClock}) and {@link #advance} it instead of waiting for time to pass.
 *
 * <p>It starts at the wall clock's now by default, so that the modification times the file system
 * gives files (orphan age, expiry records) stay comparable with it. Serializable so that a store
 * holding it can be copied; a copy moves on its own.
 */
public final class ManualClock extends Clock implements Serializable {

  private static final long serialVersionUID = 1L;

  private final AtomicLong millis;
  private final ZoneId zone;

  /** A clock standing at the wall clock's now. */
  public ManualClock() {
    this(Instant.now());
  }

  public ManualClock(Instant start) {
    this(new AtomicLong(start.toEpochMilli()), ZoneOffset.UTC);
  }

  private ManualClock(AtomicLong millis, ZoneId zone) {
    this.millis = millis;
    this.zone = zone;
  }

  /**
   * A generated write time for a file, for trigger tests around {@code delayMillis} (a max-delay):
   * a quarter long ago (twice the delay), a quarter a millisecond either side of it or on it, half
   * within the last minute.
   */
  public static long writtenAround(long now, long delayMillis, RandomGenerator r) {
    return now
        - switch (r.nextInt(4)) {
          case 0 -> 2 * delayMillis;
          case 1 -> delayMillis + r.nextInt(3) - 1;
          default -> r.nextInt(60_000);
        };
  }

  /** Moves the clock forward by {@code d} (backward when negative). */
  public ManualClock advance(Duration d) {
    millis.addAndGet(d.toMillis());
    return this;
  }

  /** Sets the clock to {@code epochMillis}. */
  public ManualClock set(long epochMillis) {
    millis.set(epochMillis);
    return this;
  }

  @Override
  public long millis() {
    return millis.get();
  }

  @Override
  public Instant instant() {
    return Instant.ofEpochMilli(millis.get());
  }

  @Override
  public ZoneId getZone() {
    return zone;
  }

  /** The same clock (it moves with this one) in another zone. */
  @Override
  public Clock withZone(ZoneId other) {
    return new ManualClock(millis, other);
  }

  @Override
  public String toString() {
    return "ManualClock[" + instant() + "]";
  }
}
