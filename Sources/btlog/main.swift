import ArgumentParser
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// A closed stdout pipe is an ordinary end (`btlog show f | head`): writes report EPIPE instead.
signal(SIGPIPE, SIG_IGN)
BTLog.runMain()
