package powershell

import (
	"strings"
	"sync"
)

// Editions an alias exists in.
const (
	both    = iota
	only51  // Windows PowerShell 5.1 only
	onlyPS7 // PowerShell 7 only
)

type alias struct {
	target  string
	edition uint8
}

// builtinAliases is PowerShell's alias table on Windows (Get-Alias in a
// clean session of each edition).
var builtinAliases = sync.OnceValue(func() map[string]alias {
	return map[string]alias{
		"%": {"ForEach-Object", both}, "?": {"Where-Object", both}, "ac": {"Add-Content", both},
		"asnp": {"Add-PSSnapin", only51}, "cat": {"Get-Content", both}, "cd": {"Set-Location", both},
		"cfs": {"ConvertFrom-String", only51}, "chdir": {"Set-Location", both}, "clc": {"Clear-Content", both},
		"clear": {"Clear-Host", both}, "clhy": {"Clear-History", both}, "cli": {"Clear-Item", both},
		"clp": {"Clear-ItemProperty", both}, "cls": {"Clear-Host", both}, "clv": {"Clear-Variable", both},
		"cnsn": {"Connect-PSSession", both}, "compare": {"Compare-Object", both}, "copy": {"Copy-Item", both},
		"cp": {"Copy-Item", both}, "cpi": {"Copy-Item", both}, "cpp": {"Copy-ItemProperty", both},
		"curl": {"Invoke-WebRequest", only51}, "cvpa": {"Convert-Path", both}, "dbp": {"Disable-PSBreakpoint", both},
		"del": {"Remove-Item", both}, "diff": {"Compare-Object", both}, "dir": {"Get-ChildItem", both},
		"dnsn": {"Disconnect-PSSession", both}, "ebp": {"Enable-PSBreakpoint", both}, "echo": {"Write-Output", both},
		"epal": {"Export-Alias", both}, "epcsv": {"Export-Csv", both}, "epsn": {"Export-PSSession", only51},
		"erase": {"Remove-Item", both}, "etsn": {"Enter-PSSession", both}, "exsn": {"Exit-PSSession", both},
		"fc": {"Format-Custom", both}, "fhx": {"Format-Hex", onlyPS7}, "fl": {"Format-List", both},
		"foreach": {"ForEach-Object", both}, "ft": {"Format-Table", both}, "fw": {"Format-Wide", both},
		"gal": {"Get-Alias", both}, "gbp": {"Get-PSBreakpoint", both}, "gc": {"Get-Content", both},
		"gcb": {"Get-Clipboard", both}, "gci": {"Get-ChildItem", both}, "gcm": {"Get-Command", both},
		"gcs": {"Get-PSCallStack", both}, "gdr": {"Get-PSDrive", both}, "gerr": {"Get-Error", onlyPS7},
		"ghy": {"Get-History", both}, "gi": {"Get-Item", both}, "gin": {"Get-ComputerInfo", both},
		"gjb": {"Get-Job", both}, "gl": {"Get-Location", both}, "gm": {"Get-Member", both},
		"gmo": {"Get-Module", both}, "gp": {"Get-ItemProperty", both}, "gpv": {"Get-ItemPropertyValue", both},
		"gps": {"Get-Process", both}, "group": {"Group-Object", both}, "gsn": {"Get-PSSession", both},
		"gsnp": {"Get-PSSnapin", only51}, "gsv": {"Get-Service", both}, "gtz": {"Get-TimeZone", both},
		"gu": {"Get-Unique", both}, "gv": {"Get-Variable", both}, "gwmi": {"Get-WmiObject", only51},
		"h": {"Get-History", both}, "history": {"Get-History", both}, "icm": {"Invoke-Command", both},
		"iex": {"Invoke-Expression", both}, "ihy": {"Invoke-History", both}, "ii": {"Invoke-Item", both},
		"ipal": {"Import-Alias", both}, "ipcsv": {"Import-Csv", both}, "ipmo": {"Import-Module", both},
		"ipsn": {"Import-PSSession", only51}, "irm": {"Invoke-RestMethod", both}, "ise": {"powershell_ise.exe", only51},
		"iwmi": {"Invoke-WmiMethod", only51}, "iwr": {"Invoke-WebRequest", both}, "kill": {"Stop-Process", both},
		"lp": {"Out-Printer", only51}, "ls": {"Get-ChildItem", both}, "man": {"help", both}, "md": {"mkdir", both},
		"measure": {"Measure-Object", both}, "mi": {"Move-Item", both}, "mount": {"New-PSDrive", both},
		"move": {"Move-Item", both}, "mp": {"Move-ItemProperty", both}, "mv": {"Move-Item", both},
		"nal": {"New-Alias", both}, "ndr": {"New-PSDrive", both}, "ni": {"New-Item", both},
		"nmo": {"New-Module", both}, "npssc": {"New-PSSessionConfigurationFile", only51}, "nsn": {"New-PSSession", both},
		"nv": {"New-Variable", both}, "ogv": {"Out-GridView", both}, "oh": {"Out-Host", both},
		"popd": {"Pop-Location", both}, "ps": {"Get-Process", both}, "pushd": {"Push-Location", both},
		"pwd": {"Get-Location", both}, "r": {"Invoke-History", both}, "rbp": {"Remove-PSBreakpoint", both},
		"rcjb": {"Receive-Job", both}, "rcsn": {"Receive-PSSession", both}, "rd": {"Remove-Item", both},
		"rdr": {"Remove-PSDrive", both}, "ren": {"Rename-Item", both}, "ri": {"Remove-Item", both},
		"rjb": {"Remove-Job", both}, "rm": {"Remove-Item", both}, "rmdir": {"Remove-Item", both},
		"rmo": {"Remove-Module", both}, "rni": {"Rename-Item", both}, "rnp": {"Rename-ItemProperty", both},
		"rp": {"Remove-ItemProperty", both}, "rsn": {"Remove-PSSession", both}, "rsnp": {"Remove-PSSnapin", only51},
		"rujb": {"Resume-Job", both}, "rv": {"Remove-Variable", both}, "rvpa": {"Resolve-Path", both},
		"rwmi": {"Remove-WmiObject", only51}, "sajb": {"Start-Job", both}, "sal": {"Set-Alias", both},
		"saps": {"Start-Process", both}, "sasv": {"Start-Service", both}, "sbp": {"Set-PSBreakpoint", both},
		"sc": {"Set-Content", only51}, "scb": {"Set-Clipboard", both}, "select": {"Select-Object", both},
		"set": {"Set-Variable", both}, "shcm": {"Show-Command", both}, "si": {"Set-Item", both},
		"sl": {"Set-Location", both}, "sleep": {"Start-Sleep", both}, "sls": {"Select-String", both},
		"sort": {"Sort-Object", both}, "sp": {"Set-ItemProperty", both}, "spjb": {"Stop-Job", both},
		"spps": {"Stop-Process", both}, "spsv": {"Stop-Service", both}, "start": {"Start-Process", both},
		"stz": {"Set-TimeZone", both}, "sujb": {"Suspend-Job", both}, "sv": {"Set-Variable", both},
		"swmi": {"Set-WmiInstance", only51}, "tee": {"Tee-Object", both}, "trcm": {"Trace-Command", both},
		"type": {"Get-Content", both}, "wget": {"Invoke-WebRequest", only51}, "where": {"Where-Object", both},
		"wjb": {"Wait-Job", both}, "write": {"Write-Output", both},
	}
})

// builtinAlias returns the target of a built-in alias (name in lower
// case) in the edition, or "".
func builtinAlias(name string, core bool) string {
	a, ok := builtinAliases()[name]
	if !ok || a.edition == only51 && core || a.edition == onlyPS7 && !core {
		return ""
	}
	return a.target
}

// moreCmdlets are cmdlets (and the functions mkdir, help) that no
// built-in alias names, listed for their canonical case.
const moreCmdlets = `Invoke-Command Start-Job Start-ThreadJob Set-ItemProperty New-ItemProperty Remove-ItemProperty
Add-Content Out-File Set-Content Invoke-WebRequest Invoke-RestMethod Start-BitsTransfer Expand-Archive
Compress-Archive New-Service Set-Service Stop-Computer Restart-Computer Set-ExecutionPolicy Set-MpPreference
Add-MpPreference Register-ScheduledTask Unregister-ScheduledTask New-ScheduledTaskAction New-ScheduledTaskTrigger
Import-Module Install-Module Install-Package Clear-RecycleBin Format-Volume Clear-Disk Remove-Partition
ConvertTo-SecureString ConvertFrom-SecureString Get-Credential Set-Acl Get-Acl Write-Host Out-Null Out-String
New-Object Add-Type Get-WmiObject Get-CimInstance Invoke-CimMethod Invoke-WmiMethod Remove-CimInstance
New-LocalUser Add-LocalGroupMember Remove-LocalUser Enable-PSRemoting Disable-WindowsOptionalFeature
Enable-WindowsOptionalFeature Set-NetFirewallProfile New-NetFirewallRule Remove-NetFirewallRule Set-Date
Update-Help Save-Help Unblock-File Set-StrictMode Register-ObjectEvent Register-EngineEvent Register-WmiEvent
Measure-Command Trace-Command Get-FileHash Test-Path Join-Path Split-Path Resolve-Path Test-Connection
Write-Error Write-Warning Write-Verbose Write-Debug Write-Information Write-Progress Read-Host ConvertTo-Json
ConvertFrom-Json ConvertTo-Csv ConvertFrom-Csv Export-Clixml Import-Clixml New-TemporaryFile Get-Date
Get-Random Invoke-Item Remove-Item Copy-Item Move-Item Rename-Item New-Item Get-Item Get-ChildItem Set-Item
Clear-Item Get-Content Clear-Content Set-Location Get-Location Push-Location Pop-Location Set-Variable
Get-Variable New-Variable Remove-Variable Clear-Variable Set-Alias New-Alias Get-Alias Get-Command
Invoke-Expression Start-Process Stop-Process Get-Process Wait-Process Start-Service Stop-Service
Restart-Service Get-Service Start-Sleep Select-String Select-Object Sort-Object Where-Object ForEach-Object
Tee-Object Write-Output Format-Hex Get-Clipboard Set-Clipboard mkdir help Disable-LocalUser Set-LocalUser
Set-WinUserLanguageList Set-Service Suspend-Service Resume-Service Remove-Service Set-Content Get-Member
New-PSDrive Remove-PSDrive Get-PSDrive Enter-PSSession New-PSSession Invoke-History Get-History
Start-Transcript Stop-Transcript Set-PSDebug Set-TimeZone Get-ItemProperty Get-ItemPropertyValue
Copy-ItemProperty Move-ItemProperty Rename-ItemProperty Clear-ItemProperty Convert-Path Get-Job Receive-Job
Remove-Job Stop-Job Wait-Job Resume-Job Suspend-Job Import-Csv Export-Csv Import-Alias Export-Alias
Get-PSSession Remove-PSSession Connect-PSSession Disconnect-PSSession Receive-PSSession Exit-PSSession
Get-Module New-Module Remove-Module Get-Unique Group-Object Measure-Object Compare-Object Format-List
Format-Table Format-Wide Format-Custom Out-Host Out-GridView Out-Printer Clear-Host Clear-History
Get-TimeZone Get-ComputerInfo Get-Error Show-Command Get-PSCallStack Get-PSBreakpoint Set-PSBreakpoint
Remove-PSBreakpoint Enable-PSBreakpoint Disable-PSBreakpoint Add-PSSnapin Get-PSSnapin Remove-PSSnapin
ConvertFrom-String Export-PSSession Import-PSSession Remove-WmiObject Set-WmiInstance
New-PSSessionConfigurationFile Out-Default Invoke-Pester Start-DscConfiguration Get-Help`

// cmdletNames maps cmdlet names in lower case to their canonical case.
var cmdletNames = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	for _, a := range builtinAliases() {
		m[strings.ToLower(a.target)] = a.target
	}
	for _, c := range strings.Fields(moreCmdlets) {
		m[strings.ToLower(c)] = c
	}
	return m
})
