package io.sediment.flink.sql;

import io.sediment.predicate.Predicate;
import io.sediment.table.DataSplit;
import io.sediment.table.ReadBuilder;
import io.sediment.table.Table;
import io.sediment.table.TableRead;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.connector.source.lib.util.IteratorSourceEnumerator;
import org.apache.flink.api.connector.source.lib.util.IteratorSourceReader;
import org.apache.flink.api.connector.source.lib.util.IteratorSourceSplit;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.util.InstantiationUtil;

/**
 * A bounded FLIP-27 source over the latest snapshot of a table: the enumerator plans {@link
 * DataSplit}s with {@link io.sediment.table.TableScan} when the job starts and hands them out on
 * request; readers read them with {@link TableRead} (which is also where primary-key tables are
 * merged). A split's position (rows already emitted) is checkpointed.
 */
public final class SedimentSource
    implements Source<RowData, SedimentSource.Split, Collection<SedimentSource.Split>> {

  private static final long serialVersionUID = 1L;

  private final Table table;
  private final Predicate filter;
  private final int[] projection;
  private final boolean withLevel0;

  /**
   * @param withLevel0 whether it is the scan of a DELETE or UPDATE ({@link
   *     io.sediment.table.ReadBuilder#withLevel0})
   */
  public SedimentSource(Table table, Predicate filter, int[] projection, boolean withLevel0) {
    this.table = table;
    this.filter = filter;
    this.projection = projection == null ? null : projection.clone();
    this.withLevel0 = withLevel0;
  }

  ReadBuilder readBuilder() {
    return ReadBuilders.of(table, filter, projection, withLevel0);
  }

  /** The splits a read would get now. */
  public List<Split> planSplits() {
    List<Split> out = new ArrayList<>();
    int i = 0;
    for (DataSplit s : readBuilder().newScan().plan().splits()) {
      out.add(new Split(String.valueOf(i++), this, s, 0));
    }
    return out;
  }

  @Override
  public Boundedness getBoundedness() {
    return Boundedness.BOUNDED;
  }

  @Override
  public SplitEnumerator<Split, Collection<Split>> createEnumerator(
      SplitEnumeratorContext<Split> ctx) {
    return new IteratorSourceEnumerator<>(ctx, planSplits());
  }

  @Override
  public SplitEnumerator<Split, Collection<Split>> restoreEnumerator(
      SplitEnumeratorContext<Split> ctx, Collection<Split> checkpoint) {
    return new IteratorSourceEnumerator<>(ctx, checkpoint);
  }

  @Override
  public SourceReader<RowData, Split> createReader(SourceReaderContext ctx) {
    return new SplitReader(ctx);
  }

  @Override
  public SimpleVersionedSerializer<Split> getSplitSerializer() {
    return new JavaSerializer<>();
  }

  @Override
  public SimpleVersionedSerializer<Collection<Split>> getEnumeratorCheckpointSerializer() {
    return new JavaSerializer<>();
  }

  /** One {@link DataSplit} and how many of its rows were already emitted. */
  public static final class Split
      implements IteratorSourceSplit<RowData, RowIterator>, Serializable {

    private static final long serialVersionUID = 1L;

    private final String id;
    private final SedimentSource source;
    private final DataSplit split;
    private final long skip;

    Split(String id, SedimentSource source, DataSplit split, long skip) {
      this.id = id;
      this.source = source;
      this.split = split;
      this.skip = skip;
    }

    public DataSplit dataSplit() {
      return split;
    }

    @Override
    public String splitId() {
      return id;
    }

    @Override
    public RowIterator getIterator() {
      return new RowIterator(source.readBuilder().newRead(), split, skip);
    }

    @Override
    public IteratorSourceSplit<RowData, RowIterator> getUpdatedSplitForIterator(RowIterator it) {
      return new Split(id, source, split, it.position);
    }
  }

  /**
   * Flink's iterator reader, for splits that may hold no row (all filtered out or deleted): it
   * emits the first row of each split after the first without asking whether there is one, so empty
   * splits are finished here before it gets to them.
   */
  static final class SplitReader extends IteratorSourceReader<RowData, RowIterator, Split> {

    SplitReader(SourceReaderContext context) {
      super(context);
    }

    @Override
    protected InputStatus tryMoveToNextSplit() {
      InputStatus status = super.tryMoveToNextSplit();
      while (status == InputStatus.MORE_AVAILABLE && !iterator.hasNext()) {
        finishSplit();
        status = super.tryMoveToNextSplit();
      }
      return status;
    }

    /** Closes the split being read: the task was cancelled, or failed, before its end. */
    @Override
    public void close() throws Exception {
      if (iterator != null) {
        iterator.close();
      }
      super.close();
    }
  }

  /** Rows of one split, copied (readers reuse rows), opened lazily, closed at the end. */
  public static final class RowIterator implements Iterator<RowData> {
    private final TableRead read;
    private final DataSplit split;
    private final long skip;
    private TableRead.RecordReader reader;
    private RowDataSerializer serializer;
    private RowData next;
    private boolean done;
    long position;

    RowIterator(TableRead read, DataSplit split, long skip) {
      this.read = read;
      this.split = split;
      this.skip = skip;
      this.position = skip;
    }

    @Override
    public boolean hasNext() {
      if (next != null) {
        return true;
      }
      if (done) {
        return false;
      }
      try {
        if (reader == null) {
          reader = read.createReader(split);
          serializer = new RowDataSerializer(read.outputType());
          for (long i = 0; i < skip; i++) {
            if (reader.next() == null) {
              break;
            }
          }
        }
        RowData r = reader.next();
        if (r == null) {
          close();
          return false;
        }
        next = serializer.copy(r);
        return true;
      } catch (IOException | RuntimeException e) {
        try {
          close();
        } catch (IOException | RuntimeException suppressed) {
          e.addSuppressed(suppressed);
        }
        if (e instanceof IOException io) {
          throw new UncheckedIOException("Cannot read " + split, io);
        }
        throw (RuntimeException) e;
      }
    }

    /** Ends the split: its reader (files, decompressors) is released. Idempotent. */
    void close() throws IOException {
      done = true;
      next = null;
      if (reader != null) {
        TableRead.RecordReader r = reader;
        reader = null;
        r.close();
      }
    }

    @Override
    public RowData next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      RowData r = next;
      next = null;
      position++;
      return r;
    }
  }

  /** Java serialization of splits and enumerator state (they hold the serializable table). */
  static final class JavaSerializer<T> implements SimpleVersionedSerializer<T> {
    @Override
    public int getVersion() {
      return 1;
    }

    @Override
    public byte[] serialize(T obj) throws IOException {
      return InstantiationUtil.serializeObject(
          obj instanceof Collection && !(obj instanceof ArrayList)
              ? new ArrayList<>((Collection<?>) obj)
              : obj);
    }

    @Override
    public T deserialize(int version, byte[] serialized) throws IOException {
      try {
        return InstantiationUtil.deserializeObject(
            serialized, Thread.currentThread().getContextClassLoader());
      } catch (ClassNotFoundException e) {
        throw new IOException(e);
      }
    }
  }
}
