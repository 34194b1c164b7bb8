package io.sediment.manifest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sediment.fs.FileIO;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.apache.flink.core.fs.FileStatus;

/**
 * The consumers of a table: streaming reads with a {@code consumer-id}, each recording the next
 * snapshot it needs in {@code consumer/consumer-<id>} as {@code {"nextSnapshot": N}} (Paimon's file
 * and format; {@code "fullRead": true} added while the read's start is not read through, see {@link
 * Position}). Snapshot expiry keeps every snapshot from the smallest such N on, except for
 * consumers not updated within {@code consumer.expiration-time}, which it deletes.
 */
public final class ConsumerManager {

  private static final ObjectMapper JSON = new ObjectMapper();

  private static final String PREFIX = "consumer-";

  /** Listings of {@link #all} while records keep vanishing, before it gives up. */
  private static final int MAX_LISTINGS = 10;

  /** What a consumer id may be: it names a file. */
  public static final Pattern VALID_ID = Pattern.compile("[A-Za-z0-9_.-]+");

  private final FileIO fileIO;
  private final TablePaths paths;

  public ConsumerManager(FileIO fileIO, TablePaths paths) {
    this.fileIO = fileIO;
    this.paths = paths;
  }

  /** One consumer: the next snapshot it needs, and when it last recorded it. */
  public record Consumer(long nextSnapshot, long modifiedMillis) {}

  /** The refusal of a consumer id that cannot name a file, or empty when it is fine. */
  public static Optional<String> checkId(String id) {
    if (id == null || !VALID_ID.matcher(id).matches()) {
      return Optional.of(
          "Invalid consumer-id '" + id + "': use letters, digits, '_', '.' and '-' only");
    }
    return Optional.empty();
  }

  /**
   * Where a read resumes: the changes of {@code nextSnapshot} and later ones; or, with {@code
   * fullRead}, that snapshot in full first (a read whose start was not read through: resuming at
   * its changes would lose the start's rows not yet emitted).
   */
  public record Position(long nextSnapshot, boolean fullRead) {}

  /** The next snapshot consumer {@code id} needs, if it recorded one. */
  public OptionalLong nextSnapshot(String id) {
    Optional<Position> p = position(id);
    return p.isPresent() ? OptionalLong.of(p.get().nextSnapshot()) : OptionalLong.empty();
  }

  /** Where consumer {@code id} resumes, if it recorded a position. */
  public Optional<Position> position(String id) {
    String json;
    try {
      json = fileIO.readUtf8(paths.consumer(id));
    } catch (FileNotFoundException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read consumer " + id, e);
    }
    try {
      long next = parse(json, id); // fails first, naming the file, on what is not JSON
      JsonNode full = JSON.readTree(json).get("fullRead");
      return Optional.of(new Position(next, full != null && full.asBoolean()));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read consumer " + id, e);
    }
  }

  /** Records that consumer {@code id} needs snapshot {@code nextSnapshot} and later ones. */
  public void record(String id, long nextSnapshot) throws IOException {
    record(id, new Position(nextSnapshot, false));
  }

  /**
   * Records consumer {@code id}'s position: expiry keeps its snapshot and the later ones; {@code
   * "fullRead": true} only when the read resumes with that snapshot in full.
   */
  public void record(String id, Position position) throws IOException {
    // a rename that fails after the old record was deleted (HDFS) leaves the new one in its
    // temporary file, which all() counts: the consumer is never without a record
    fileIO.replaceAtomically(
        paths.consumer(id),
        ("{\"nextSnapshot\":"
                + position.nextSnapshot()
                + (position.fullRead() ? ",\"fullRead\":true" : "")
                + "}")
            .getBytes(StandardCharsets.UTF_8),
        true);
  }

  /**
   * Deletes consumer {@code id}'s record, with the temporary files of its rewrites (one left by a
   * crash would count as the record, see {@link #all}); false when there was none.
   */
  public boolean delete(String id) {
    try {
      boolean deleted = fileIO.delete(paths.consumer(id), false);
      for (FileStatus st : fileIO.list(paths.consumerDir())) {
        if (id.equals(rewrittenId(st.getPath().getName()))) {
          deleted |= fileIO.delete(st.getPath(), false);
        }
      }
      return deleted;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot delete consumer " + id, e);
    }
  }

  /** The ids of the table's consumers, sorted; their files are not read. */
  public Set<String> ids() {
    Set<String> out = new TreeSet<>();
    try {
      for (FileStatus st : fileIO.list(paths.consumerDir())) {
        String name = st.getPath().getName();
        if (!st.isDir() && name.startsWith("consumer-")) {
          out.add(name.substring("consumer-".length()));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot list the consumers under " + paths.consumerDir(), e);
    }
    return out;
  }

  /**
   * Every consumer of the table, by id. A record being rewritten is not missed: where a file system
   * replaces a file by deleting it and renaming the new one into place (HDFS, {@link
   * FileIO#overwriteHint}), a consumer without its file but with a complete temporary file counts
   * at that file's position, and a file gone when read makes the consumers be listed again.
   */
  public Map<String, Consumer> all() {
    for (int listing = 1; ; listing++) {
      Map<String, Consumer> out = new TreeMap<>();
      Map<String, FileStatus> rewriting = new TreeMap<>();
      boolean vanished = false;
      try {
        for (FileStatus st : fileIO.list(paths.consumerDir())) {
          String name = st.getPath().getName();
          String rewritten = rewrittenId(name);
          if (rewritten != null && !st.isDir()) {
            rewriting.put(rewritten, st);
          }
          if (st.isDir() || !name.startsWith(PREFIX)) {
            continue;
          }
          String id = name.substring(PREFIX.length());
          try {
            out.put(id, read(st, id));
          } catch (FileNotFoundException gone) {
            vanished = true; // deleted, or being replaced
          }
        }
        for (Map.Entry<String, FileStatus> e : rewriting.entrySet()) {
          if (!out.containsKey(e.getKey())) {
            try {
              out.put(e.getKey(), read(e.getValue(), e.getKey()));
            } catch (FileNotFoundException renamed) {
              vanished = true; // renamed into place since the listing: list again
            } catch (IOException notYetWritten) {
              // still being written (its old file was not deleted yet), or no record
            }
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot list the consumers under " + paths.consumerDir(), e);
      }
      if (!vanished) {
        return out;
      }
      if (listing == MAX_LISTINGS) {
        // one left out could let an expiry retire what its read needs
        throw new UncheckedIOException(
            new IOException(
                "The consumers under "
                    + paths.consumerDir()
                    + " kept changing while they were read ("
                    + listing
                    + " listings)"));
      }
    }
  }

  private Consumer read(FileStatus st, String id) throws IOException {
    return new Consumer(parse(fileIO.readUtf8(st.getPath()), id), st.getModificationTime());
  }

  /**
   * The consumer id of a temporary file of a rewrite ({@link FileIO#temporaryPathFor}), or null.
   */
  private static String rewrittenId(String name) {
    String start = "." + PREFIX;
    String end = ".tmp";
    int uuid = 36;
    if (!name.startsWith(start) || !name.endsWith(end)) {
      return null;
    }
    int idEnd = name.length() - end.length() - uuid - 1;
    return idEnd > start.length() && name.charAt(idEnd) == '.'
        ? name.substring(start.length(), idEnd)
        : null;
  }

  /**
   * The smallest next snapshot of the consumers updated within {@code expiration} (null: none
   * expires) before {@code nowMillis}; consumers older than that are deleted. Empty when no
   * consumer holds a snapshot.
   */
  public OptionalLong smallestNeeded(Duration expiration, long nowMillis) {
    long smallest = Long.MAX_VALUE;
    for (Map.Entry<String, Consumer> e : all().entrySet()) {
      Consumer c = e.getValue();
      if (expiration != null && c.modifiedMillis() < nowMillis - expiration.toMillis()) {
        try {
          delete(e.getKey());
        } catch (UncheckedIOException ignored) {
          // expired all the same; deleted at the next expiry
        }
        continue;
      }
      smallest = Math.min(smallest, c.nextSnapshot());
    }
    return smallest == Long.MAX_VALUE ? OptionalLong.empty() : OptionalLong.of(smallest);
  }

  private long parse(String json, String id) throws IOException {
    JsonNode node;
    try {
      node = JSON.readTree(json);
    } catch (IOException e) {
      throw new IOException("Consumer file " + paths.consumer(id) + " is not valid JSON", e);
    }
    JsonNode next = node == null ? null : node.get("nextSnapshot");
    if (next == null || !next.canConvertToLong()) {
      throw new IOException(
          "Consumer file " + paths.consumer(id) + " has no number 'nextSnapshot': " + json);
    }
    return next.asLong();
  }
}
