package io.sediment.format;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import org.apache.parquet.bytes.ByteBufferAllocator;

/**
 * A heap allocator for one Parquet file writer that keeps released buffers for reuse: parquet-mr
 * releases every page's value buffers after writing the page and allocates the same sizes again for
 * the next one, so a writer otherwise allocates about twice its data in garbage. Keeps at most
 * {@link #MAX_POOLED_BYTES} of free buffers. Not thread-safe (a file writer is single-threaded).
 */
final class RecyclingAllocator implements ByteBufferAllocator {

  static final long MAX_POOLED_BYTES = 16L * 1024 * 1024;

  private final Map<Integer, ArrayDeque<ByteBuffer>> free = new HashMap<>();
  private long pooledBytes;

  /**
   * A buffer of {@code size} bytes (its limit; the capacity is {@code size} rounded up to a power
   * of two, so that the growing slab sizes parquet-mr asks for find released buffers to reuse).
   */
  @Override
  public ByteBuffer allocate(int size) {
    int capacity = size <= 64 ? 64 : Integer.highestOneBit(size - 1) << 1;
    if (capacity <= 0) {
      capacity = size; // beyond 1 GiB: exact
    }
    ArrayDeque<ByteBuffer> buffers = free.get(capacity);
    ByteBuffer b;
    if (buffers != null && !buffers.isEmpty()) {
      b = buffers.pop();
      pooledBytes -= capacity;
      b.clear();
    } else {
      b = ByteBuffer.allocate(capacity);
    }
    b.limit(size);
    return b;
  }

  @Override
  public void release(ByteBuffer buffer) {
    int size = buffer.capacity();
    if (buffer.isDirect() || pooledBytes + size > MAX_POOLED_BYTES) {
      return;
    }
    free.computeIfAbsent(size, s -> new ArrayDeque<>()).push(buffer);
    pooledBytes += size;
  }

  @Override
  public boolean isDirect() {
    return false;
  }
}
