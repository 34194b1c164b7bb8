package io.sediment.flink;

import org.apache.flink.runtime.throwable.ThrowableAnnotation;
import org.apache.flink.runtime.throwable.ThrowableType;

/**
 * The table a job writes was dropped, dropped and created again, or renamed since the job loaded
 * it: its commits would put files of the old table's schema into whatever table is at the path now.
 * Nothing more is committed, and Flink fails the job instead of restarting it (a non-recoverable
 * error): every restart would find the same.
 */
@ThrowableAnnotation(ThrowableType.NonRecoverableError)
public final class TableReplacedException extends IllegalStateException {

  private static final long serialVersionUID = 1L;

  public TableReplacedException(String table) {
    super(
        table
            + " was dropped, replaced or renamed since this job loaded it: nothing more is"
            + " committed into it (its files written since the last commit are left for"
            + " remove_orphan_files); run the statement again against the table there now");
  }
}
