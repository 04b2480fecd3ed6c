// The executable is only this: everything testable lives in AppDNACLI and AppDNACore.
import AppDNACLI

Runner.exitProcess(Runner.runProcess())
