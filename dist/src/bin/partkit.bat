@rem partkit @project.version@, from its distribution: io.partkit.cli.Main on lib\*, with the JVM
@rem flags Ignite and Hazelcast need on Java 17. Needs Java 17 or later: JAVA_HOME's, or on PATH.
@rem The per-command heap and collector tuning of bin/partkit is left to PARTKIT_JAVA_OPTS here.
@echo off
setlocal
set "PARTKIT_HOME=%~dp0.."
if defined JAVA_HOME (set "JAVA=%JAVA_HOME%\bin\java") else (set "JAVA=java")
"%JAVA%" %PARTKIT_JAVA_OPTS% @ignite.jvm.opens@ @hazelcast.jvm.opens@ -cp "%PARTKIT_HOME%\lib\*" io.partkit.cli.Main %*
exit /b %ERRORLEVEL%
