import AppDNACLI
