package io.sediment.flink.sql.procedures;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Makes the job a procedure submits carry Sediment's jar, as the SQL session's own jobs do.
 *
 * <p>Flink gives a procedure an environment without the session's {@code pipeline.jars}: a jar that
 * the SQL client took with {@code -j} or {@code ADD JAR} reaches the procedure's class loader but
 * not the cluster, whose JobManager then fails on Sediment's operators ({@code
 * ClassNotFoundException}). So when Sediment was loaded from a jar by a class loader other than the
 * JVM's own (a session's or a job's user-code class loader), that jar joins the job's {@code
 * pipeline.jars}. A jar on the JVM's class path (a Flink distribution's {@code lib/}) is the
 * cluster's too and is not added.
 */
final class ProcedureJobJars {

  private ProcedureJobJars() {}

  /** Adds the jar Sediment was loaded from to {@code env}'s {@code pipeline.jars}, if needed. */
  static void addSedimentJar(StreamExecutionEnvironment env) {
    userJar(ProcedureJobJars.class).ifPresent(jar -> addJar(env, jar));
  }

  /** Adds {@code jar} to {@code env}'s {@code pipeline.jars} unless it is there already. */
  static void addJar(StreamExecutionEnvironment env, URL jar) {
    List<String> jars =
        new ArrayList<>(env.getConfiguration().getOptional(PipelineOptions.JARS).orElse(List.of()));
    String added = normalized(jar.toString());
    if (jars.stream().anyMatch(j -> normalized(j).equals(added))) {
      return;
    }
    jars.add(jar.toString());
    Configuration update = new Configuration();
    update.set(PipelineOptions.JARS, jars);
    env.configure(update);
  }

  /** The jar {@code cls} was loaded from by a user-code class loader, if it was. */
  static Optional<URL> userJar(Class<?> cls) {
    ClassLoader loader = cls.getClassLoader();
    for (ClassLoader l = ClassLoader.getSystemClassLoader(); l != null; l = l.getParent()) {
      if (l == loader) {
        return Optional.empty();
      }
    }
    CodeSource source = cls.getProtectionDomain().getCodeSource();
    if (source == null || source.getLocation() == null) {
      return Optional.empty();
    }
    URL location = source.getLocation();
    if (!location.getProtocol().equals("file")
        || !Files.isRegularFile(Path.of(normalized(location.toString())))) {
      return Optional.empty(); // classes in a directory: a test's class path, not a jar to ship
    }
    return Optional.of(location);
  }

  /**
   * The local path of a {@code file:} URL (for comparing {@code file:/x} with {@code file:///x}).
   */
  private static String normalized(String url) {
    try {
      URI uri = new URI(url);
      return "file".equals(uri.getScheme()) ? Path.of(uri).normalize().toString() : url;
    } catch (URISyntaxException | IllegalArgumentException e) {
      return url;
    }
  }
}
