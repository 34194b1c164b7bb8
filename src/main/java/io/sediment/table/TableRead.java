package io.sediment.table;

import io.sediment.format.DataFileReader;
import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.EvolvingFileReader;
import io.sediment.manifest.FileStore;
import io.sediment.predicate.Predicate;
import io.sediment.predicate.Predicates;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.utils.ProjectedRowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.RowType;

/**
 * Reads the rows of splits: file by file, in the split's order, streaming one row group at a time.
 * Rows that do not match the filter are dropped, so the filter is exact.
 */
public final class TableRead {

  private final FileStore store;
  private final Predicate filter;
  private final int[] projection;
  private final boolean stream;
  private final boolean withLevel0;

  /**
   * @param stream whether it reads a stream's splits: its full splits then hold what precedes the
   *     stream's changes (see {@link PrimaryKeyReader})
   */
  TableRead(
      FileStore store, Predicate filter, int[] projection, boolean stream, boolean withLevel0) {
    this.store = store;
    this.filter = filter;
    this.projection = projection;
    this.stream = stream;
    this.withLevel0 = withLevel0;
  }

  /** A reader of one split. Returned rows may be reused by the next call to {@code next()}. */
  public RecordReader createReader(DataSplit split) {
    if (store.schema().hasPrimaryKey()) {
      // Merges the sorted runs of the bucket (or applies deletion vectors).
      PrimaryKeyReader r;
      try {
        r = new PrimaryKeyReader(store, split, filter, projection, stream, withLevel0);
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot open " + split, e);
      }
      return new RecordReader() {
        @Override
        public RowData next() throws IOException {
          return r.next();
        }

        @Override
        public void close() throws IOException {
          r.close();
        }
      };
    }
    return new SplitReader(split);
  }

  /** Reads every row of the splits into a list of independent copies (for tests and tools). */
  public List<RowData> readAll(List<DataSplit> splits) throws IOException {
    RowType outType = outputType();
    RowDataSerializer ser = new RowDataSerializer(outType);
    List<RowData> out = new ArrayList<>();
    for (DataSplit s : splits) {
      try (RecordReader r = createReader(s)) {
        RowData row;
        while ((row = r.next()) != null) {
          out.add(ser.copy(row));
        }
      }
    }
    return out;
  }

  public RowType outputType() {
    return DataFileReader.project(store.rowType(), projection);
  }

  /** A pull reader of rows: {@code next()} returns null at the end. */
  public interface RecordReader extends Closeable {
    RowData next() throws IOException;
  }

  private final class SplitReader implements RecordReader {
    private final DataSplit split;
    private final Iterator<DataFileMeta> files;
    private final int[] readFields;
    private final Predicate readFilter;
    private final ProjectedRowData output;
    private EvolvingFileReader current;

    SplitReader(DataSplit split) {
      this.split = split;
      this.files = split.files().iterator();
      int n = store.rowType().getFieldCount();
      int[] proj = projection;
      if (proj == null) {
        proj = new int[n];
        for (int i = 0; i < n; i++) {
          proj[i] = i;
        }
      }
      // Read the projected columns plus those the filter needs; then project them away.
      Set<Integer> fields = new LinkedHashSet<>();
      for (int p : proj) {
        fields.add(p);
      }
      if (filter != null) {
        List<String> names = store.schema().fieldNames();
        for (String f : filter.fieldNames()) {
          fields.add(names.indexOf(f));
        }
      }
      readFields = fields.stream().mapToInt(Integer::intValue).toArray();
      List<RowType.RowField> rf = new ArrayList<>();
      for (int f : readFields) {
        rf.add(store.rowType().getFields().get(f));
      }
      RowType readType = new RowType(rf);
      readFilter = filter == null ? null : Predicates.rebind(filter, readType);
      int[] outIdx = new int[proj.length];
      for (int i = 0; i < proj.length; i++) {
        outIdx[i] = i; // projected columns come first in readFields
      }
      boolean identity = readFields.length == proj.length;
      output = identity ? null : ProjectedRowData.from(outIdx);
    }

    @Override
    public RowData next() throws IOException {
      while (true) {
        if (current == null) {
          if (!files.hasNext()) {
            return null;
          }
          DataFileMeta f = files.next();
          // row groups that cannot match are not read (an append file's rows need no merge)
          current =
              EvolvingFileReader.open(
                  store,
                  split.partition(),
                  split.bucket(),
                  f,
                  store.rowType(),
                  readFields,
                  readFilter);
        }
        RowData row = current.next();
        if (row == null) {
          current.close();
          current = null;
          continue;
        }
        if (readFilter != null && !readFilter.test(row)) {
          continue;
        }
        return output == null ? row : output.replaceRow(row);
      }
    }

    @Override
    public void close() throws IOException {
      if (current != null) {
        current.close();
        current = null;
      }
    }
  }
}
