package io.sediment.fs;

import java.io.ByteArrayOutputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;

/**
 * File access for one warehouse through Flink's {@link FileSystem}, so every scheme Flink has a
 * file system for works (local, S3, HDFS, OSS, GCS through Flink plugins).
 *
 * <p>Adds the one primitive the commit protocol needs beyond Flink's API: {@link
 * #tryCreateExclusive}, an atomic create-if-absent. On the local file system it publishes a fully
 * written temporary file with a hard link, which fails atomically when the target exists ({@code
 * rename} would overwrite). On other file systems it uses {@code rename}, which is atomic and
 * refuses an existing target on HDFS-like systems. Object stores ({@link #isObjectStore}) have
 * neither: there snapshots are published under a commit lock ({@code LockedSnapshotCommit}); see
 * docs/operations.md, "Object stores".
 */
public final class FileIO implements Serializable {

  private static final long serialVersionUID = 1L;

  /**
   * Schemes of object stores: no atomic create-if-absent or rename, but a PUT replaces an object
   * whole (readers see the old or the new content, never a part).
   */
  private static final Set<String> OBJECT_STORE_SCHEMES =
      Set.of(
          "s3", "s3a", "s3n", "s3p", "gs", "oss", "abfs", "abfss", "wasb", "wasbs", "cos", "cosn",
          "obs", "blob");

  /** A check run right before a file is published; throws to keep it unpublished. */
  @FunctionalInterface
  public interface PublishFence {
    void check() throws IOException;
  }

  /** Reads of a whole object on an object store are tried this often (see {@link #readBytes}). */
  private static final int OBJECT_READ_ATTEMPTS = 10;

  /** Listings of a directory that changes while it is listed are retried this often. */
  private static final int LIST_ATTEMPTS = 10;

  private final String scheme;

  private FileIO(String scheme) {
    this.scheme = scheme;
  }

  /** The file IO for the file system of {@code path}. */
  public static FileIO of(Path path) {
    return new FileIO(path.toUri().getScheme() == null ? "file" : path.toUri().getScheme());
  }

  /**
   * The file system of {@code path}; on an object store one that counts its requests ({@link
   * ObjectStoreRequests}).
   */
  public FileSystem fs(Path path) {
    try {
      return fileSystem(path);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot open the file system of " + path, e);
    }
  }

  /**
   * The file system of {@code path} for code that holds no FileIO (the Parquet readers and
   * writers); on an object store one that counts its requests ({@link ObjectStoreRequests}).
   */
  public static FileSystem fileSystem(Path path) throws IOException {
    FileSystem fs = path.getFileSystem();
    return isObjectStoreScheme(path.toUri().getScheme()) ? new CountingFileSystem(fs) : fs;
  }

  private static boolean isObjectStoreScheme(String scheme) {
    return scheme != null && OBJECT_STORE_SCHEMES.contains(scheme.toLowerCase(Locale.ROOT));
  }

  /** A hidden temporary file beside {@code target} (remove_orphan_files knows the pattern). */
  public static Path temporaryPathFor(Path target) {
    return new Path(target.getParent(), "." + target.getName() + "." + UUID.randomUUID() + ".tmp");
  }

  public boolean isLocal() {
    return "file".equals(scheme);
  }

  /** Whether {@code path} (a path or URI) is on an object store. */
  public static boolean isObjectStore(String path) {
    return of(new Path(path)).isObjectStore();
  }

  /** Whether the warehouse is on an object store (s3://, gs://, oss://, abfs://...). */
  public boolean isObjectStore() {
    return isObjectStoreScheme(scheme);
  }

  public String scheme() {
    return scheme;
  }

  public boolean exists(Path path) throws IOException {
    return fs(path).exists(path);
  }

  /**
   * Whether the file {@code file} exists (not a directory), for a file that is usually missing (the
   * next snapshot id). On an object store a missing file costs one HEAD: {@link #exists} answers
   * "missing" with a HEAD and a LIST (S3A looks for a directory of that name too), while S3A opens
   * a file with a HEAD only. A present file costs a HEAD and a one-byte GET: some S3 file systems
   * (Presto's) open lazily and report a missing object only at the first read.
   */
  public boolean fileExists(Path file) throws IOException {
    if (!isObjectStore()) {
      return exists(file);
    }
    ObjectStoreRequests.count(ObjectStoreRequests.Kind.HEAD);
    try (InputStream in = file.getFileSystem().open(file)) {
      ObjectStoreRequests.count(ObjectStoreRequests.Kind.GET);
      in.read();
      return true;
    } catch (FileNotFoundException e) {
      return false;
    }
  }

  public void mkdirs(Path path) throws IOException {
    if (!fs(path).mkdirs(path)) {
      throw new IOException("Cannot create directory " + path);
    }
  }

  /** Deletes a file or a directory tree; true if something was deleted. */
  public boolean delete(Path path, boolean recursive) throws IOException {
    return fs(path).delete(path, recursive);
  }

  /** Files and directories directly under {@code dir}; empty when it does not exist. */
  public List<FileStatus> list(Path dir) throws IOException {
    FileSystem fs = fs(dir);
    if (isObjectStore()) {
      // One LIST: a missing directory is an empty prefix (an exists check would LIST it too).
      try {
        FileStatus[] st = fs.listStatus(dir);
        return st == null ? List.of() : List.of(st);
      } catch (FileNotFoundException e) {
        return List.of();
      }
    }
    for (int attempt = 1; ; attempt++) {
      if (!fs.exists(dir)) {
        return List.of();
      }
      try {
        FileStatus[] st = fs.listStatus(dir);
        return st == null ? List.of() : List.of(st);
      } catch (FileNotFoundException e) {
        // Local listing reads names, then each file's status: a file deleted in between (a
        // temporary file of a concurrent commit) fails the whole listing. List again.
        if (attempt >= LIST_ATTEMPTS) {
          throw e;
        }
      }
    }
  }

  /**
   * Reads a whole (small) file. On object stores a read that fails for another reason than a
   * missing file is tried again, up to 10 times with a short growing pause: an object replaced
   * while it is opened (a hint rewritten by a committer) fails the read (S3A: "Change reported by
   * S3 during open"), and a later read gets the new content.
   */
  public byte[] readBytes(Path path) throws IOException {
    for (int attempt = 1; ; attempt++) {
      try (InputStream in = fs(path).open(path)) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        in.transferTo(out);
        return out.toByteArray();
      } catch (FileNotFoundException | InterruptedIOException e) {
        throw e;
      } catch (IOException e) {
        if (!isObjectStore() || attempt >= OBJECT_READ_ATTEMPTS) {
          throw e;
        }
        // a committer rewriting the object again and again (hints under a busy writer): back off
        // a little so that one read falls between two rewrites
        try {
          Thread.sleep(5L * attempt);
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          InterruptedIOException stop = new InterruptedIOException("Interrupted reading " + path);
          stop.addSuppressed(e);
          throw stop;
        }
      }
    }
  }

  public String readUtf8(Path path) throws IOException {
    return new String(readBytes(path), StandardCharsets.UTF_8);
  }

  /** Writes a new file; fails if it exists. Not atomic: readers may see a partial file. */
  public void writeNew(Path path, byte[] content) throws IOException {
    OutputStream out = fs(path).create(path, FileSystem.WriteMode.NO_OVERWRITE);
    // The file is ours from here: a failed write or close (disk full) must not leave it half
    // written for a reader or a later listing to find.
    try (out) {
      out.write(content);
    } catch (IOException | RuntimeException e) {
      IOException cleanup = deleteQuietly(path);
      if (cleanup != null) {
        e.addSuppressed(cleanup);
      }
      throw e;
    }
  }

  /**
   * Atomically creates {@code target} with {@code content} unless it exists. Readers never see a
   * partial file. Returns false, changing nothing, when the target already exists.
   */
  public boolean tryCreateExclusive(Path target, byte[] content) throws IOException {
    Path tmp = temporaryPathFor(target);
    try {
      writeNew(tmp, content);
      if (isLocal()) {
        try {
          Files.createLink(Paths.get(target.toUri()), Paths.get(tmp.toUri()));
          return true;
        } catch (FileAlreadyExistsException e) {
          return false;
        }
      }
      FileSystem fs = fs(target);
      if (fs.exists(target)) {
        return false;
      }
      return fs.rename(tmp, target);
    } finally {
      deleteQuietly(tmp);
    }
  }

  /**
   * Moves {@code from} to {@code to}, replacing it (object stores: a copy, then a delete of the
   * source). False when the file system reports it did not move.
   */
  public boolean rename(Path from, Path to) throws IOException {
    return fs(to).rename(from, to);
  }

  /**
   * Writes {@code target} whole, replacing it: readers see the old content or the new one. Object
   * stores: one PUT. Local: a temporary file moved over it. Others: a temporary file renamed after
   * the target is deleted.
   */
  public void replaceAtomically(Path target, byte[] content) throws IOException {
    replaceAtomically(target, content, false);
  }

  /**
   * {@link #replaceAtomically(Path, byte[])}; {@code keepNewOnFailure}: where the target is deleted
   * before the rename (HDFS), a rename that fails then leaves the new content in its temporary file
   * ({@link #temporaryPathFor}) rather than nowhere, for readers that look for it there.
   */
  public void replaceAtomically(Path target, byte[] content, boolean keepNewOnFailure)
      throws IOException {
    if (isObjectStore()) {
      try (OutputStream out = fs(target).create(target, FileSystem.WriteMode.OVERWRITE)) {
        out.write(content);
      }
      return;
    }
    Path tmp = temporaryPathFor(target);
    boolean keepTmp = false;
    try {
      writeNew(tmp, content);
      if (isLocal()) {
        Files.move(
            Paths.get(tmp.toUri()),
            Paths.get(target.toUri()),
            StandardCopyOption.REPLACE_EXISTING,
            StandardCopyOption.ATOMIC_MOVE);
      } else {
        FileSystem fs = fs(target);
        fs.delete(target, false);
        keepTmp = keepNewOnFailure; // the old content is gone: the new one is all there is
        if (!fs.rename(tmp, target)) {
          throw new IOException("Could not move " + tmp + " to " + target);
        }
        keepTmp = false;
      }
    } finally {
      if (!keepTmp) {
        deleteQuietly(tmp);
      }
    }
  }

  /**
   * Replaces a small hint file (best effort, last writer wins). Local: write, then an atomic rename
   * over it. Object stores: one PUT, which replaces the object whole. Others (HDFS): write, delete,
   * rename, with a short window in which the hint is missing (readers then list).
   */
  public void overwriteHint(Path target, String content) throws IOException {
    replaceAtomically(target, content.getBytes(StandardCharsets.UTF_8));
  }

  /** Deletes a file, ignoring errors; returns the error, if any, for callers that report it. */
  public IOException deleteQuietly(Path path) {
    try {
      fs(path).delete(path, false);
      return null;
    } catch (IOException e) {
      return e;
    } catch (RuntimeException e) {
      return new IOException(e);
    }
  }

  /** Deletes every path; returns the errors (empty when all went). */
  public List<IOException> deleteAll(Iterable<Path> paths) {
    List<IOException> errors = new ArrayList<>();
    for (Path p : paths) {
      try {
        FileSystem fs = fs(p);
        if (!fs.delete(p, false) && fs.exists(p)) {
          errors.add(new IOException("Could not delete " + p));
        }
      } catch (IOException e) {
        errors.add(e);
      } catch (RuntimeException e) {
        errors.add(new IOException("Could not delete " + p, e));
      }
    }
    return errors;
  }
}
