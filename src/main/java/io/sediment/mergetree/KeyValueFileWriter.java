package io.sediment.mergetree;

import io.sediment.data.BinaryRows;
import io.sediment.data.PartitionComputer;
import io.sediment.format.ColumnStats;
import io.sediment.format.EncodingHints;
import io.sediment.format.FileFormatOptions;
import io.sediment.format.WrittenFile;
import io.sediment.io.DataFileFactory;
import io.sediment.io.OutputObserver;
import io.sediment.io.RollingFileWriter;
import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.FileSource;
import io.sediment.manifest.FileStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.core.fs.Path;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.types.logical.RowType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes key-ordered file-layout rows of one bucket into files of one level, rolling at {@code
 * target-file-size}, and describes each file: key range, sequence range, delete-row count.
 */
public final class KeyValueFileWriter {

  private static final Logger LOG = LoggerFactory.getLogger(KeyValueFileWriter.class);

  private final FileStore store;
  private final KeyValueLayout layout;
  private final int level;
  private final FileSource source;
  private final RollingFileWriter writer;
  private final PartitionComputer keyProjector;
  private final PartitionComputer valueProjector;
  private final List<long[]> fileCounters = new ArrayList<>(); // minSeq, maxSeq, deletes
  private final List<BinaryRowData[]> fileKeys = new ArrayList<>();
  private long minSeq = Long.MAX_VALUE;
  private long maxSeq = Long.MIN_VALUE;
  private long deletes;
  private BinaryRowData minKey;
  // The key of the last row written (the file's max key when it ends), copied: the row's values
  // may be gone by then (a compaction reads strings into reused buffers, see RunReader), and
  // rewritten in place for every row. A one-column integral key is kept as a primitive instead.
  private BinaryRowData lastKey;
  private final KeyValueLayout.IntegralKey integralKey;
  private long lastIntegralKey;
  private boolean hasLast;
  private EncodingHints encodingHints;
  private LocalKeyCache.Builder lookups; // null: no lookup files written along

  public KeyValueFileWriter(
      FileStore store,
      KeyValueLayout layout,
      BinaryRowData partition,
      int bucket,
      int level,
      FileSource source,
      DataFileFactory names) {
    this(store, layout, partition, bucket, level, source, names, OutputObserver.NONE);
  }

  /** A writer that announces each new file to {@code observer} before creating it. */
  public KeyValueFileWriter(
      FileStore store,
      KeyValueLayout layout,
      BinaryRowData partition,
      int bucket,
      int level,
      FileSource source,
      DataFileFactory names,
      OutputObserver observer) {
    this.store = store;
    this.layout = layout;
    this.level = level;
    this.source = source;
    this.writer =
        new RollingFileWriter(
            store.fileIO(),
            () -> {
              Path path = store.dataFilePath(partition, bucket, names.newFileName());
              try {
                observer.beforeCreate(path);
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
              return path;
            },
            layout.fileType(),
            () -> {
              FileFormatOptions base = DataFileFactory.formatOptions(store.options());
              return encodingHints == null ? base : encodingHints.apply(base);
            },
            store.options().targetFileSize());
    this.keyProjector = new PartitionComputer(layout.fileType(), layout.keyIndexes());
    int[] values = new int[layout.arity()];
    for (int i = 0; i < values.length; i++) {
      values[i] = i;
    }
    this.valueProjector = new PartitionComputer(layout.fileType(), values);
    this.integralKey = layout.integralKey();
  }

  /**
   * Encodes each new file's columns as the inputs' {@code hints} suggest (see {@link
   * EncodingHints}), consulted when the file is created.
   */
  public void useEncodingHints(EncodingHints hints) {
    this.encodingHints = hints;
  }

  /**
   * Writes the lookup file of each data file into {@code cache} along with it, published when
   * {@link #finish()} describes the files: for a level that later compactions look keys up in
   * (deletion vectors), which would otherwise read each file back to build it.
   */
  public void writeLookupFilesTo(LocalKeyCache cache) {
    if (lookups == null) {
      lookups = cache.builder();
    }
  }

  public void write(RowData kv) throws IOException {
    if (lookups != null) {
      try {
        lookups.add(kv);
      } catch (IOException e) {
        dropLookups(e);
      }
    }
    if (minKey == null) {
      minKey = keyProjector.project(kv);
    }
    long seq = layout.sequence(kv);
    minSeq = Math.min(minSeq, seq);
    maxSeq = Math.max(maxSeq, seq);
    if (layout.isRetract(kv)) {
      deletes++;
    }
    boolean rolled = writer.write(kv);
    if (rolled) {
      endFile(keyProjector.project(kv));
    } else {
      if (integralKey != null) {
        lastIntegralKey = integralKey.get(kv);
      } else {
        lastKey = keyProjector.projectReused(kv);
      }
      hasLast = true;
    }
  }

  private BinaryRowData integralMaxKey() {
    GenericRowData key = new GenericRowData(layout.fileType().getFieldCount());
    key.setField(layout.keyIndexes()[0], integralKey.box(lastIntegralKey));
    return keyProjector.project(key);
  }

  private void endFile(BinaryRowData maxKey) {
    if (lookups != null) {
      try {
        lookups.endFile();
      } catch (IOException e) {
        dropLookups(e);
      }
    }
    fileKeys.add(new BinaryRowData[] {minKey, maxKey});
    fileCounters.add(new long[] {minSeq, maxSeq, deletes});
    minKey = null;
    minSeq = Long.MAX_VALUE;
    maxSeq = Long.MIN_VALUE;
    deletes = 0;
    hasLast = false;
  }

  /** Closes the last file and describes every file written since the last call. */
  public List<DataFileMeta> finish() throws IOException {
    if (minKey != null && hasLast) {
      endFile(integralKey != null ? integralMaxKey() : lastKey.copy());
    }
    List<WrittenFile> written = writer.finish();
    if (written.size() != fileKeys.size()) {
      throw new IllegalStateException(
          "Internal error: " + written.size() + " files but " + fileKeys.size() + " key ranges");
    }
    List<DataFileMeta> out = new ArrayList<>();
    for (int i = 0; i < written.size(); i++) {
      out.add(meta(written.get(i), fileKeys.get(i), fileCounters.get(i)));
    }
    fileKeys.clear();
    fileCounters.clear();
    if (lookups != null) {
      try {
        lookups.publish(out.stream().map(DataFileMeta::fileName).toList());
      } catch (IOException e) {
        dropLookups(e);
      }
    }
    return out;
  }

  private DataFileMeta meta(WrittenFile w, BinaryRowData[] keys, long[] counters) {
    ColumnStats stats = w.stats();
    RowType fileType = layout.fileType();
    BinaryRowData min = valueProjector.project(BinaryRows.toGeneric(fileType, stats.min()));
    BinaryRowData max = valueProjector.project(BinaryRows.toGeneric(fileType, stats.max()));
    return new DataFileMeta(
        w.path().getName(),
        w.fileSize(),
        w.rowCount(),
        keys[0],
        keys[1],
        min,
        max,
        Arrays.copyOf(stats.nullCounts(), layout.arity()),
        counters[0],
        counters[1],
        store.schema().id(),
        level,
        store.clock().millis(),
        source,
        counters[2]);
  }

  /**
   * Stops writing lookup files and deletes those not published: they are a cache, so a failure to
   * write one leaves it to be built when a compaction needs it, and never fails the data files.
   */
  private void dropLookups(IOException cause) {
    if (lookups == null) {
      return;
    }
    if (cause != null) {
      LOG.warn(
          "Could not write a lookup file into the local cache; it is built when needed", cause);
    }
    try {
      lookups.close();
    } catch (IOException e) {
      LOG.warn("Could not delete an unfinished lookup file of the local cache", e);
    }
    lookups = null;
  }

  /** Deletes every file not yet handed out by {@link #finish()}. */
  public List<IOException> abort() {
    fileKeys.clear();
    fileCounters.clear();
    minKey = null;
    dropLookups(null);
    return writer.abort();
  }
}
