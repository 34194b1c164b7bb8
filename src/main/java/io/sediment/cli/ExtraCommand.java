package io.sediment.cli;

import java.util.concurrent.Callable;

/**
 * A {@code sediment} subcommand that lives outside the product jar, found on the class path through
 * {@link java.util.ServiceLoader}: the benchmark's {@code bench} (target/sediment-bench.jar, which
 * bin/sediment adds when it was built). A picocli {@code @Command} with a public no-argument
 * constructor, listed in {@code META-INF/services/io.sediment.cli.ExtraCommand}.
 */
public interface ExtraCommand extends Callable<Integer> {}
