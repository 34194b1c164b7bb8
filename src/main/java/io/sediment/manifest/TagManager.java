package io.sediment.manifest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sediment.fs.FileIO;
import io.sediment.fs.JsonSerde;
import io.sediment.schema.ScanOptions;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import org.apache.flink.core.fs.FileStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tags of a table: named snapshots kept after snapshot expiry, each a copy of its snapshot's
 * file in {@code tag/tag-<name>} (Paimon's layout), written once (or replaced whole by {@code
 * sys.replace_tag}). Expiry and orphan removal keep every file a tag's snapshot references ({@code
 * retention.TableFiles}); a read with {@code scan.tag-name} reads it. When a tag was made is in its
 * file ({@code tagCreatedMillis}), or, in a file without it, is the file's modification time.
 */
public final class TagManager {

  /** What a tag name may be: it names a file ({@link ScanOptions#TAG_NAME}). */
  private static final Pattern VALID_NAME = Pattern.compile(ScanOptions.TAG_NAME);

  private static final String PREFIX = "tag-";

  private static final Logger LOG = LoggerFactory.getLogger(TagManager.class);

  /** Tags read in this process, by path and modification time ({@link #read}). */
  private static final Map<String, Tag> CACHE = new ConcurrentHashMap<>();

  private static final int CACHE_ENTRIES = 10_000;

  /** How old a tag file must be to be cached: see {@link #read}. */
  private static final long SETTLED_MILLIS = 10 * 60 * 1000;

  /** Listings of {@link #all} before it gives up on tags that keep changing. */
  private static final int MAX_LISTINGS = 10;

  private final FileIO fileIO;
  private final TablePaths paths;

  public TagManager(FileIO fileIO, TablePaths paths) {
    this.fileIO = fileIO;
    this.paths = paths;
  }

  /**
   * One tag: its name, the snapshot it keeps, when it was made, and how long after that it is kept
   * (null: until it is deleted; Paimon's {@code time_retained}).
   */
  public record Tag(String name, Snapshot snapshot, long createdMillis, Duration timeRetained) {

    /**
     * Whether its time has run out at {@code nowMillis}: it has a retention and was made longer
     * than that before.
     */
    public boolean expiredAt(long nowMillis) {
      if (timeRetained == null) {
        return false;
      }
      long until;
      try {
        until = Math.addExact(createdMillis, timeRetained.toMillis());
      } catch (ArithmeticException overflow) {
        return false; // kept for longer than epoch milliseconds reach
      }
      return nowMillis > until;
    }
  }

  /** The JSON key of a tag's retention in its file: seconds, as Paimon writes a Duration. */
  static final String TIME_RETAINED = "tagTimeRetained";

  /** The JSON key of when a tag was made, in epoch milliseconds (else: its file's time). */
  static final String CREATED = "tagCreatedMillis";

  /**
   * The content of a tag file: {@code snapshot}'s JSON, with {@code tagCreatedMillis} and, when the
   * tag has a retention, {@code tagTimeRetained} (decimal seconds).
   */
  public static byte[] fileContent(Snapshot snapshot, long createdMillis, Duration timeRetained) {
    try {
      ObjectNode node = (ObjectNode) JsonSerde.mapper().readTree(snapshot.toJson());
      node.put(CREATED, createdMillis);
      if (timeRetained != null) {
        node.put(
            TIME_RETAINED,
            BigDecimal.valueOf(timeRetained.getSeconds())
                .add(BigDecimal.valueOf(timeRetained.getNano(), 9)));
      }
      return JsonSerde.mapper().writeValueAsBytes(node);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The retention in a tag file's JSON, or null. One that is not a positive number of seconds is
   * taken as none, with a warning (the tag is kept: it still keeps its snapshot's files); one
   * beyond what a Duration holds as the longest one.
   */
  private static Duration timeRetained(JsonNode tree, String file) {
    JsonNode value = tree.get(TIME_RETAINED);
    if (value == null || value.isNull()) {
      return null;
    }
    if (!value.isNumber() || value.decimalValue().signum() <= 0) {
      LOG.warn(
          "Tag file {} has {} {}, not a positive number of seconds; the tag is kept until"
              + " deleted",
          file,
          TIME_RETAINED,
          value);
      return null;
    }
    BigDecimal seconds = value.decimalValue();
    try {
      return Duration.ofSeconds(
          seconds.toBigInteger().longValueExact(),
          seconds.remainder(BigDecimal.ONE).movePointRight(9).longValue());
    } catch (ArithmeticException tooLong) {
      return Duration.ofSeconds(Long.MAX_VALUE);
    }
  }

  /** The refusal of a name that cannot name a tag file, or empty when it is fine. */
  public static Optional<String> checkName(String name) {
    if (name == null || name.isBlank()) {
      return Optional.of("A tag name must not be empty");
    }
    if (!VALID_NAME.matcher(name).matches()) {
      return Optional.of(
          "Invalid tag name '"
              + name
              + "': use letters, digits, '_', '.', '-' and single spaces between them only");
    }
    return Optional.empty();
  }

  /**
   * The refusal of a name for a tag made by hand, or empty when it is fine: {@link #checkName}, and
   * not digits only, which would read as a snapshot id (as in Paimon; its automatic tags without
   * dashes, {@code 20240615}, are such names).
   */
  public static Optional<String> checkNewName(String name) {
    Optional<String> refusal = checkName(name);
    if (refusal.isEmpty() && name.chars().allMatch(Character::isDigit)) {
      return Optional.of(
          "Invalid tag name '" + name + "': a tag name of digits only reads as a snapshot id");
    }
    return refusal;
  }

  /** Tag {@code name}, if there is one. */
  public Optional<Tag> get(String name) {
    try {
      return Optional.of(read(fileIO.fs(paths.tag(name)).getFileStatus(paths.tag(name)), name));
    } catch (FileNotFoundException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read tag " + name + " at " + paths.tag(name), e);
    }
  }

  /**
   * Writes tag {@code name}'s file anew with {@code content} ({@link #fileContent}), replacing it
   * at once: a reader sees the old tag or the new one.
   */
  public void overwrite(String name, byte[] content) {
    org.apache.flink.core.fs.Path file = paths.tag(name);
    forget(name);
    try {
      long before = modificationTime(file);
      fileIO.replaceAtomically(file, content);
      // Other processes know the tag's content by its path, time and size: on a store whose times
      // are whole seconds (S3), a rewrite within the second of the last write would keep the old
      // key, so it is written again once the store's clock has moved on.
      for (int wait = 0; wait < 3 && modificationTime(file) == before; wait++) {
        Thread.sleep(1_000);
        fileIO.replaceAtomically(file, content);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write tag " + name, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while writing tag " + name, e);
    } finally {
      forget(name);
    }
  }

  /** Drops what this process cached of tag {@code name}'s file. */
  private void forget(String name) {
    String prefix = paths.tag(name) + "@";
    CACHE.keySet().removeIf(k -> k.startsWith(prefix));
  }

  private long modificationTime(org.apache.flink.core.fs.Path file) throws IOException {
    try {
      return fileIO.fs(file).getFileStatus(file).getModificationTime();
    } catch (FileNotFoundException e) {
      return -1;
    }
  }

  /** Deletes tag {@code name}; false when there was none. */
  public boolean delete(String name) {
    // a tag made again under this name may get the same modification time (whole seconds on S3)
    forget(name);
    try {
      return fileIO.delete(paths.tag(name), false);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot delete tag " + name, e);
    }
  }

  /** The names of the table's tags, sorted; their files are not read. */
  public Set<String> names() {
    Set<String> out = new TreeSet<>();
    try {
      for (FileStatus st : fileIO.list(paths.tagDir())) {
        String file = st.getPath().getName();
        if (!st.isDir() && file.startsWith(PREFIX)) {
          out.add(file.substring(PREFIX.length()));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot list the tags under " + paths.tagDir(), e);
    }
    return out;
  }

  /**
   * Every tag of the table, by name. A tag file that does not parse is left out, with a warning
   * naming it: it is no tag anything can read ({@link #get} names it). When a listed file is gone
   * by the time it is read, the tags are listed again: a tag renamed meanwhile is made under its
   * new name before the old one is deleted, so the next listing holds it (one listing could see
   * neither name).
   */
  public Map<String, Tag> all() {
    for (int listing = 1; ; listing++) {
      Map<String, Tag> out = new TreeMap<>();
      List<FileStatus> files;
      try {
        files = fileIO.list(paths.tagDir());
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot list the tags under " + paths.tagDir(), e);
      }
      boolean vanished = false;
      for (FileStatus st : files) {
        String file = st.getPath().getName();
        if (st.isDir() || !file.startsWith(PREFIX)) {
          continue; // such as a temporary file of a creation in progress
        }
        String name = file.substring(PREFIX.length());
        try {
          out.put(name, read(st, name));
        } catch (FileNotFoundException gone) {
          vanished = true; // deleted, or renamed, meanwhile
        } catch (InvalidTagFile e) {
          LOG.warn("{}; it is no tag (delete it with CALL sys.delete_tag)", e.getMessage());
        } catch (IOException e) {
          throw new UncheckedIOException("Cannot read tag " + name + " at " + st.getPath(), e);
        }
      }
      if (!vanished) {
        return out;
      }
      if (listing == MAX_LISTINGS) {
        throw new UncheckedIOException(
            new IOException(
                "The tags under "
                    + paths.tagDir()
                    + " kept changing while they were read ("
                    + listing
                    + " listings); nothing was decided on them"));
      }
    }
  }

  /**
   * A tag file, through a cache of those read in this process: a tag file is written once but by
   * {@link #overwrite}, so its path, modification time and size name its content (a deleted and
   * re-made tag, or a replaced one, has a new time), once the file is older than {@link
   * #SETTLED_MILLIS}. A younger one is read every time: a process that deletes and makes it again
   * within the store's time resolution (whole seconds on S3) could keep all three.
   */
  private Tag read(FileStatus st, String name) throws IOException {
    String key = st.getPath() + "@" + st.getModificationTime() + "@" + st.getLen();
    Tag cached = CACHE.get(key);
    if (cached != null) {
      return cached;
    }
    String json = fileIO.readUtf8(st.getPath());
    Tag tag;
    try {
      JsonNode tree = JsonSerde.mapper().readTree(json);
      JsonNode created = tree.get(CREATED);
      tag =
          new Tag(
              name,
              Snapshot.fromJson(json),
              created != null && created.canConvertToLong()
                  ? created.longValue()
                  : st.getModificationTime(),
              timeRetained(tree, st.getPath().toString()));
    } catch (IllegalArgumentException | JsonProcessingException e) {
      throw new InvalidTagFile(
          "Tag file " + st.getPath() + " is not a valid snapshot: " + e.getMessage(), e);
    }
    // wall clock: it decides what is cached, not what is read; the margin covers the skew between
    // this machine and the store (as CommitCleanup's)
    if (System.currentTimeMillis() - st.getModificationTime() > SETTLED_MILLIS) {
      if (CACHE.size() >= CACHE_ENTRIES) {
        CACHE.clear(); // crude, and rare: tags are few
      }
      CACHE.put(key, tag);
    }
    return tag;
  }

  /** A tag file whose content is not a snapshot. */
  private static final class InvalidTagFile extends IOException {
    private static final long serialVersionUID = 1L;

    InvalidTagFile(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
