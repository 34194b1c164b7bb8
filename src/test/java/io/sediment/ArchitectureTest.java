package io.sediment;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The package structure of src/main/java, read from the sources: every {@code import
 * io.sediment...} line and every inline fully-qualified {@code io.sediment.x.Y} reference is an
 * edge from the referring package to the referenced one. Packages must form no cycle, and every
 * edge must point down the layers of docs/architecture.md. No class is longer than 600 lines.
 */
class ArchitectureTest {

  /** The product's sources and the benchmark's (its own jar, the top layer). */
  private static final List<Path> SOURCES =
      List.of(Paths.get("src/main/java"), Paths.get("src/bench/java"));

  /**
   * The layers, lowest first. A package may use packages of its own layer (without a cycle) and of
   * lower layers, never of higher ones. A new package must be placed here.
   */
  private static final List<Set<String>> LAYERS =
      List.of(
          Set.of("data", "fs", "schema", "predicate"),
          Set.of("format"),
          Set.of("manifest"),
          Set.of("io"),
          Set.of("mergetree"),
          Set.of("commit", "retention"),
          Set.of("compact", "marker"),
          Set.of("table"),
          Set.of("catalog", "maintenance", "systable"),
          Set.of("flink.sql.filter", "flink.serde"),
          Set.of("flink"),
          Set.of("flink.sql", "flink.sql.procedures"),
          Set.of("cli"),
          Set.of("bench"));

  /**
   * Known edges against the rules, each to be removed by the change named. Keep this empty: an
   * entry is a debt with an owner, not a permission.
   */
  private static final Map<String, String> KNOWN_VIOLATIONS = Map.of();

  /** Above this, a class has more than one job: split it along its seams (issue 26). */
  private static final int MAX_LINES = 600;

  private static final Pattern PACKAGE =
      Pattern.compile("^package\\s+([\\w.]+)\\s*;", Pattern.MULTILINE);
  private static final Pattern IMPORT_OR_PACKAGE =
      Pattern.compile("^\\s*(import|package)\\s[^;]*;", Pattern.MULTILINE);
  private static final Pattern OTHER_IMPORT =
      Pattern.compile(
          "^\\s*import\\s+(?!static)(?!io\\.sediment\\.)[\\w.]*\\.(\\w+)\\s*;", Pattern.MULTILINE);
  private static final Pattern REFERENCE =
      Pattern.compile("(?<![\\w.])io\\.sediment((?:\\.[a-z_][a-z0-9_]*)+)(?=\\.[A-Z*])");

  @Test
  void packagesFormNoCycle() throws IOException {
    Map<String, Map<String, Set<String>>> graph = graph();
    List<List<String>> cycles = new ArrayList<>();
    for (List<String> component : new StronglyConnected(graph).components()) {
      if (component.size() > 1) {
        cycles.add(component);
      }
    }
    assertThat(cycles)
        .as("package cycles (edges with the files making them):%n%s", describe(graph, cycles))
        .isEmpty();
  }

  @Test
  void dependenciesPointDownTheLayers() throws IOException {
    Map<String, Map<String, Set<String>>> graph = graph();
    List<String> problems = new ArrayList<>();
    for (String p : graph.keySet()) {
      if (layer(p) < 0) {
        problems.add("package " + p + " is in no layer of ArchitectureTest.LAYERS");
      }
    }
    graph.forEach(
        (from, targets) ->
            targets.forEach(
                (to, files) -> {
                  if (layer(from) >= 0 && layer(to) > layer(from)) {
                    problems.add(from + " -> " + to + " (up a layer) in " + files);
                  }
                }));
    assertThat(problems).isEmpty();
  }

  /**
   * Code names other Sediment classes through imports, not inline {@code io.sediment.x.Y}: an
   * inline name hides a package dependency from a reader of the imports.
   */
  @Test
  void codeImportsInsteadOfQualifying() throws IOException {
    List<String> inline = new ArrayList<>();
    for (Path file : sources()) {
      String where = shortPath(file);
      String source = stripCommentsAndLiterals(Files.readString(file, StandardCharsets.UTF_8));
      // A name may stay qualified where another import takes its simple name (Flink's Schema,
      // CatalogException next to Sediment's).
      Set<String> importedNames = new TreeSet<>();
      Matcher imports = OTHER_IMPORT.matcher(source);
      while (imports.find()) {
        importedNames.add(imports.group(1));
      }
      String code = IMPORT_OR_PACKAGE.matcher(source).replaceAll("");
      Matcher m = REFERENCE.matcher(code);
      while (m.find()) {
        int end = m.end() + 1;
        while (end < code.length() && Character.isJavaIdentifierPart(code.charAt(end))) {
          end++;
        }
        String name = code.substring(m.start(), end);
        if (!importedNames.contains(name.substring(name.lastIndexOf('.') + 1))) {
          inline.add(where + ": " + name);
        }
      }
    }
    assertThat(inline).isEmpty();
  }

  /**
   * No class of the product or the benchmark is longer than {@link #MAX_LINES} lines, so that a
   * class stays one responsibility a reader can hold (FileStoreCommit grew to 637 unnoticed).
   */
  @Test
  void noClassIsLongerThanSixHundredLines() throws IOException {
    Map<String, Integer> tooLong = new TreeMap<>();
    for (Path file : sources()) {
      int lines = Files.readAllLines(file, StandardCharsets.UTF_8).size();
      if (lines > MAX_LINES) {
        tooLong.put(shortPath(file), lines);
      }
    }
    assertThat(tooLong).as("classes over %d lines", MAX_LINES).isEmpty();
  }

  @Test
  void knownViolationsStillExist() throws IOException {
    // An allow-list entry whose edge is gone must be removed, so the list only shrinks.
    Map<String, Map<String, Set<String>>> raw = graph(false);
    for (String edge : KNOWN_VIOLATIONS.keySet()) {
      String[] ends = edge.split(" -> ");
      assertThat(raw.getOrDefault(ends[0], Map.of()))
          .as("known violation %s is gone: remove it from KNOWN_VIOLATIONS", edge)
          .containsKey(ends[1]);
    }
  }

  private static int layer(String pkg) {
    for (int i = 0; i < LAYERS.size(); i++) {
      if (LAYERS.get(i).contains(pkg)) {
        return i;
      }
    }
    return -1;
  }

  private static Map<String, Map<String, Set<String>>> graph() throws IOException {
    return graph(true);
  }

  /** from package -> to package -> files of {@code from} making the edge (short names). */
  private static Map<String, Map<String, Set<String>>> graph(boolean dropKnown) throws IOException {
    Map<String, Map<String, Set<String>>> graph = new TreeMap<>();
    for (Path file : sources()) {
      String code = stripCommentsAndLiterals(Files.readString(file, StandardCharsets.UTF_8));
      Matcher pm = PACKAGE.matcher(code);
      if (!pm.find()) {
        continue;
      }
      String from = shortName(pm.group(1));
      Map<String, Set<String>> targets = graph.computeIfAbsent(from, k -> new TreeMap<>());
      Matcher m = REFERENCE.matcher(code);
      while (m.find()) {
        String to = m.group(1).substring(1);
        if (to.equals(from)) {
          continue;
        }
        String where = shortPath(file);
        if (dropKnown && where.equals(KNOWN_VIOLATIONS.get(from + " -> " + to))) {
          continue;
        }
        targets.computeIfAbsent(to, k -> new TreeSet<>()).add(where);
      }
    }
    return graph;
  }

  private static List<Path> sources() throws IOException {
    List<Path> files = new ArrayList<>();
    for (Path root : SOURCES) {
      try (Stream<Path> s = Files.walk(root)) {
        List<Path> found = s.filter(f -> f.toString().endsWith(".java")).sorted().toList();
        assertThat(found).as("sources under %s", root.toAbsolutePath()).isNotEmpty();
        files.addAll(found);
      }
    }
    return files;
  }

  /** The path below io/sediment/, e.g. {@code compact/CompactBuilder.java}. */
  private static String shortPath(Path file) {
    Path root = SOURCES.stream().filter(file::startsWith).findFirst().orElseThrow();
    String where = root.relativize(file).toString().replace('\\', '/');
    return where.startsWith("io/sediment/") ? where.substring("io/sediment/".length()) : where;
  }

  private static String shortName(String pkg) {
    return pkg.equals("io.sediment") ? "" : pkg.substring("io.sediment.".length());
  }

  private static String describe(
      Map<String, Map<String, Set<String>>> graph, List<List<String>> cycles) {
    StringBuilder out = new StringBuilder();
    for (List<String> cycle : cycles) {
      out.append("cycle among ").append(cycle).append(":\n");
      for (String from : cycle) {
        for (Map.Entry<String, Set<String>> e : graph.get(from).entrySet()) {
          if (cycle.contains(e.getKey())) {
            out.append("  ")
                .append(from)
                .append(" -> ")
                .append(e.getKey())
                .append("  ")
                .append(e.getValue())
                .append('\n');
          }
        }
      }
    }
    return out.toString();
  }

  /** The code with comments, string, text-block and char literals blanked out. */
  static String stripCommentsAndLiterals(String src) {
    StringBuilder out = new StringBuilder(src.length());
    int i = 0;
    int n = src.length();
    while (i < n) {
      char c = src.charAt(i);
      if (c == '/' && i + 1 < n && src.charAt(i + 1) == '/') {
        while (i < n && src.charAt(i) != '\n') {
          i++;
        }
      } else if (c == '/' && i + 1 < n && src.charAt(i + 1) == '*') {
        int end = src.indexOf("*/", i + 2);
        i = end < 0 ? n : end + 2;
        out.append(' ');
      } else if (src.startsWith("\"\"\"", i)) {
        int end = src.indexOf("\"\"\"", i + 3);
        i = end < 0 ? n : end + 3;
        out.append("\"\"");
      } else if (c == '"' || c == '\'') {
        i++;
        while (i < n && src.charAt(i) != c) {
          i += src.charAt(i) == '\\' ? 2 : 1;
        }
        i++;
        out.append(c).append(c);
      } else {
        out.append(c);
        i++;
      }
    }
    return out.toString();
  }

  /** Tarjan's strongly connected components of the package graph. */
  private static final class StronglyConnected {
    private final Map<String, Map<String, Set<String>>> graph;
    private final Map<String, Integer> index = new LinkedHashMap<>();
    private final Map<String, Integer> low = new LinkedHashMap<>();
    private final List<String> stack = new ArrayList<>();
    private final List<List<String>> components = new ArrayList<>();

    StronglyConnected(Map<String, Map<String, Set<String>>> graph) {
      this.graph = graph;
    }

    List<List<String>> components() {
      for (String v : graph.keySet()) {
        if (!index.containsKey(v)) {
          visit(v);
        }
      }
      return components;
    }

    private void visit(String v) {
      index.put(v, index.size());
      low.put(v, index.get(v));
      stack.add(v);
      for (String w : graph.getOrDefault(v, Map.of()).keySet()) {
        if (!index.containsKey(w)) {
          visit(w);
          low.put(v, Math.min(low.get(v), low.get(w)));
        } else if (stack.contains(w)) {
          low.put(v, Math.min(low.get(v), index.get(w)));
        }
      }
      if (low.get(v).equals(index.get(v))) {
        List<String> component = new ArrayList<>();
        String w;
        do {
          w = stack.remove(stack.size() - 1);
          component.add(w);
        } while (!w.equals(v));
        components.add(component);
      }
    }
  }
}
