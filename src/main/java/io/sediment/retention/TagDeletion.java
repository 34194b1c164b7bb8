package io.sediment.retention;

import io.sediment.fs.FileIO;
import io.sediment.manifest.FileStore;
import io.sediment.manifest.ManifestCache;
import io.sediment.manifest.Snapshot;
import io.sediment.manifest.TablePaths;
import io.sediment.manifest.TagManager;
import io.sediment.schema.TagOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.flink.core.fs.Path;

/**
 * Deletes the files that only deleted tags referenced: those of tags of snapshots that expired
 * meanwhile ({@link TableFiles#onlyTagged}). Data and deletion-vector files first, then manifests
 * and index manifests, then manifest lists, so a failure leaves no list naming a deleted manifest;
 * what a failure leaves is unreferenced, and orphan removal takes it.
 */
public final class TagDeletion {

  private TagDeletion() {}

  /** How many data files and metadata files the deletion removed. */
  public record Result(int dataFiles, int metadataFiles) {}

  /**
   * With {@code tag.num-retained-max} set, keeps the newest that many of the table's tags that
   * {@code counted} holds for (oldest first in {@code order}) and deletes the others, then the
   * files only they kept; returns their names (none without the option).
   */
  static List<String> keepNewest(
      FileStore store,
      TagManager tags,
      Predicate<TagManager.Tag> counted,
      Comparator<TagManager.Tag> order) {
    Integer max = store.options().get(TagOptions.TAG_NUM_RETAINED_MAX);
    if (max == null) {
      return List.of();
    }
    List<TagManager.Tag> candidates = new ArrayList<>();
    for (TagManager.Tag t : tags.all().values()) {
      if (counted.test(t)) {
        candidates.add(t);
      }
    }
    if (candidates.size() <= max) {
      return List.of();
    }
    candidates.sort(order);
    List<TagManager.Tag> oldest = candidates.subList(0, candidates.size() - max);
    List<String> names = new ArrayList<>();
    for (TagManager.Tag t : oldest) {
      tags.delete(t.name());
      names.add(t.name());
    }
    deleteFilesOf(store, oldest);
    return names;
  }

  /**
   * Deletes what only {@code deleted} (tags whose files are deleted already) referenced.
   *
   * @throws UncheckedIOException naming how many files could not be deleted
   */
  public static Result deleteFilesOf(FileStore store, List<TagManager.Tag> deleted) {
    TableFiles.Reader reader = new TableFiles.Reader(store);
    TableFiles gone = TableFiles.onlyTagged(reader, deleted, store.snapshotManager().listIds());
    TablePaths paths = store.paths();
    Set<String> lists = new HashSet<>();
    Set<String> indexManifests = new HashSet<>();
    for (TagManager.Tag t : deleted) {
      Snapshot s = t.snapshot();
      lists.add(s.baseManifestList());
      lists.add(s.deltaManifestList());
      if (s.changelogManifestList() != null) {
        lists.add(s.changelogManifestList());
      }
      if (s.indexManifest() != null) {
        indexManifests.add(s.indexManifest());
      }
    }
    List<Path> first = new ArrayList<>();
    gone.dataFiles.values().forEach(e -> first.add(TableFiles.path(store, e)));
    List<Path> second = new ArrayList<>();
    List<Path> third = new ArrayList<>();
    for (String name : gone.indexNames) {
      (indexManifests.contains(name) ? second : first).add(paths.index(name));
    }
    for (String name : gone.metadataNames) {
      (lists.contains(name) ? third : second).add(paths.manifest(name));
    }
    FileIO io = store.fileIO();
    for (List<Path> step : List.of(first, second, third)) {
      List<IOException> errors = io.deleteAll(step);
      ManifestCache.forget(step);
      if (!errors.isEmpty()) {
        IOException e =
            new IOException(
                "Could not delete "
                    + errors.size()
                    + " file(s) that only the deleted tags referenced; the tags are deleted, and"
                    + " remove_orphan_files deletes the rest");
        errors.forEach(e::addSuppressed);
        throw new UncheckedIOException(e);
      }
    }
    int data = gone.dataFiles.size();
    return new Result(data, first.size() - data + second.size() + third.size());
  }
}
