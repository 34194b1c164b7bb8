package io.sediment.testutil;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The JVM options of every process a test starts (committers in their own JVM, S3Proxy, the CLI, a
 * local cluster's JobManager and TaskManagers): the client compiler only and the serial collector.
 * A test process lives seconds to a minute; on the 2-core CI machine the optimizing compiler's
 * threads of three such JVMs took more CPU than they saved, and their collectors' threads competed
 * with the test JVMs (the S3 process race: 38 s with the defaults, 20 s with these). Semantics are
 * the JVM's either way; only the time differs. The test JVMs themselves run with the client
 * compiler too (surefire's {@code argLine} in {@code pom.xml}).
 */
public final class ChildJvm {

  /** The options, in the order they are passed. */
  public static final List<String> OPTIONS = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");

  private ChildJvm() {}

  /** {@link #OPTIONS} as one string, for {@code SEDIMENT_JAVA_OPTS} and Flink's java options. */
  public static String options() {
    return String.join(" ", OPTIONS);
  }

  /**
   * {@code java} of this JVM's installation, then {@link #OPTIONS}, then {@code arguments}: a new
   * list, which callers may extend.
   */
  public static List<String> java(String... arguments) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(OPTIONS);
    command.addAll(List.of(arguments));
    return command;
  }
}
