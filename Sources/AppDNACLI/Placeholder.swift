import AppDNACore
