package io.sediment.mergetree;

import io.sediment.io.OutputObserver;
import io.sediment.manifest.DeletionFile;
import io.sediment.manifest.FileStore;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.flink.core.fs.Path;
import org.roaringbitmap.RoaringBitmap;

/**
 * Deletion-vector files {@code index/dv-<uuid>}: the 4 bytes {@code SDV1}, then for each data file
 * one RoaringBitmap of deleted row positions in Roaring's portable serialization. A {@link
 * DeletionFile} points at one bitmap (offset, length).
 */
public final class DeletionVectors {

  static final byte[] MAGIC = {'S', 'D', 'V', '1'};

  private DeletionVectors() {}

  /** Writes the bitmaps (by data file name) into one new file; returns their deletion files. */
  public static List<DeletionFile> write(FileStore store, Map<String, RoaringBitmap> bitmaps)
      throws IOException {
    return write(store, bitmaps, OutputObserver.NONE);
  }

  /** {@link #write(FileStore, Map)}, announcing the new file to {@code observer} first. */
  public static List<DeletionFile> write(
      FileStore store, Map<String, RoaringBitmap> bitmaps, OutputObserver observer)
      throws IOException {
    if (bitmaps.isEmpty()) {
      return List.of();
    }
    String name = "dv-" + UUID.randomUUID();
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    out.write(MAGIC);
    List<DeletionFile> files = new ArrayList<>();
    for (Map.Entry<String, RoaringBitmap> e : bitmaps.entrySet()) {
      RoaringBitmap b = e.getValue();
      b.runOptimize();
      int offset = out.size();
      b.serialize(out);
      files.add(
          new DeletionFile(e.getKey(), name, offset, out.size() - offset, b.getLongCardinality()));
    }
    out.flush();
    Path path = store.paths().index(name);
    observer.beforeCreate(path);
    store.fileIO().writeNew(path, bytes.toByteArray());
    return files;
  }

  /** Reads the bitmap of one deletion file. */
  public static RoaringBitmap read(FileStore store, DeletionFile file) throws IOException {
    return read(store, List.of(file)).get(file.dataFile());
  }

  /** Reads the bitmaps of the given deletion files, by data file name (one read per dv file). */
  public static Map<String, RoaringBitmap> read(FileStore store, Iterable<DeletionFile> files)
      throws IOException {
    Map<String, byte[]> contents = new HashMap<>();
    Map<String, RoaringBitmap> out = new HashMap<>();
    for (DeletionFile f : files) {
      byte[] content = contents.get(f.dvFile());
      if (content == null) {
        content = store.fileIO().readBytes(store.paths().index(f.dvFile()));
        if (content.length < 4
            || content[0] != MAGIC[0]
            || content[1] != MAGIC[1]
            || content[2] != MAGIC[2]
            || content[3] != MAGIC[3]) {
          throw new IOException("Not a deletion-vector file: " + store.paths().index(f.dvFile()));
        }
        contents.put(f.dvFile(), content);
      }
      out.put(f.dataFile(), bitmap(store, f, content));
    }
    return out;
  }

  /** The bitmap of {@code f} in {@code content}; a truncated or corrupt one names the file. */
  private static RoaringBitmap bitmap(FileStore store, DeletionFile f, byte[] content)
      throws IOException {
    try {
      if (f.offset() < 0 || f.offset() + f.length() > content.length) {
        throw new EOFException(
            "the vector at offset "
                + f.offset()
                + " of "
                + f.length()
                + " bytes lies beyond the file's "
                + content.length
                + " bytes (truncated?)");
      }
      RoaringBitmap b = new RoaringBitmap();
      b.deserialize(ByteBuffer.wrap(content, (int) f.offset(), f.length()).slice());
      return b;
    } catch (IOException | RuntimeException e) {
      throw new IOException(
          "Cannot read the deletion vector of data file "
              + f.dataFile()
              + " in deletion-vector file "
              + store.paths().index(f.dvFile())
              + ": "
              + (e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName()),
          e);
    }
  }
}
