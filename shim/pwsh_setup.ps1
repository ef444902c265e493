# cordon: the set-up of an interactive PowerShell whose every entered line is
# judged before it runs (docs/terminals.md, docs/interactive.md). cordon makes
# it for each shell it starts, filling in the two values below, and runs it
# with -NoExit -Command after PowerShell has read the user's profiles. It runs
# the caller's own -Command (VS Code's shellIntegration.ps1), then installs a
# PSReadLine Enter key handler that asks cordon about the edit buffer. If it
# cannot install the handler, the shell ends: it never runs lines unjudged.
$__CordonChannel = '@CHANNEL@'
$__CordonCaller = '@CALLER@'
try {
	if ($__CordonCaller) {
		# Dot-sourced, so that what it defines stays, as -Command would.
		. ([System.Management.Automation.ScriptBlock]::Create($__CordonCaller))
	}
}
finally {
	try {
		$__CordonModule = New-Module -Name CordonTerminal -ArgumentList $__CordonChannel -ScriptBlock {
			param([string]$Channel)
			$ErrorActionPreference = 'Stop'
			if (-not (Get-Module -Name PSReadLine)) {
				throw 'PSReadLine is not loaded (standard input is not a console, -NonInteractive, or a screen reader made PowerShell leave it out), and without it cordon cannot see the lines entered'
			}
			if ($Channel.StartsWith('fd:')) {
				# Linux and macOS: a socket inherited at that descriptor.
				$handle = [System.Net.Sockets.SafeSocketHandle]::new([System.IntPtr][int]$Channel.Substring(3), $true)
				$socket = [System.Net.Sockets.Socket]::new($handle)
				$pipe = [System.Net.Sockets.NetworkStream]::new($socket, $true)
			}
			else {
				# Windows: the named pipe the unconfined cordon made for this shell.
				$pipe = [System.IO.Pipes.NamedPipeClientStream]::new('.', $Channel, [System.IO.Pipes.PipeDirection]::InOut, [System.IO.Pipes.PipeOptions]::None, [System.Security.Principal.TokenImpersonationLevel]::Identification)
				$pipe.Connect(10000)
			}
			$reader = [System.IO.BufferedStream]::new($pipe)
			$utf8 = [System.Text.UTF8Encoding]::new($false)
			# The protocol's hello, before any entered line.
			$hello = $utf8.GetBytes('hello' + [char]0 + 'pwsh' + [char]0 + '1' + [char]0)
			$pipe.Write($hello, 0, $hello.Length)
			$pipe.Flush()
			$state = @{ Seq = 0; Message = '' }

			# The Enter handler. It calls no command by name (a function or an
			# alias a line defined could stand in for one), only .NET methods.
			$handler = {
				param($key, $arg)
				$line = $null
				$cursor = $null
				[Microsoft.PowerShell.PSConsoleReadLine]::GetBufferState([ref]$line, [ref]$cursor)
				$tokens = $null
				$problems = $null
				$null = [System.Management.Automation.Language.Parser]::ParseInput($line, [ref]$tokens, [ref]$problems)
				foreach ($p in $problems) {
					if ($p.IncompleteInput) {
						# Not a whole command yet: a new line, and editing goes on.
						[Microsoft.PowerShell.PSConsoleReadLine]::AddLine()
						return
					}
				}
				$verdict = 'refuse'
				$message = ''
				try {
					$state.Seq++
					$seq = [string]$state.Seq
					$where = $ExecutionContext.SessionState.Path.CurrentFileSystemLocation.ProviderPath
					$z = [string][char]0
					$out = $utf8.GetBytes('line' + $z + $seq + $z + $where + $z + $line + $z)
					$pipe.Write($out, 0, $out.Length)
					$pipe.Flush()
					while ($true) {
						$fields = [System.Collections.Generic.List[string]]::new()
						while ($fields.Count -lt 3) {
							$bytes = [System.IO.MemoryStream]::new()
							while ($true) {
								$b = $reader.ReadByte()
								if ($b -lt 0) {
									throw 'the channel was closed'
								}
								if ($b -eq 0) {
									break
								}
								$bytes.WriteByte([byte]$b)
							}
							$fields.Add($utf8.GetString($bytes.ToArray()))
						}
						if ($fields[1] -ceq $seq) {
							break
						}
					}
					if ($fields[0] -ceq 'run' -or $fields[0] -ceq 'more') {
						$verdict = $fields[0]
					}
					elseif ($fields[0] -ceq 'refuse') {
						$message = $fields[2]
					}
					else {
						throw ('an answer cordon does not know: ' + $fields[0])
					}
				}
				catch {
					$message = 'cordon: the judge of this terminal is not reachable (' + $_.Exception.Message + '); nothing was run. Open a new terminal.' + [System.Environment]::NewLine
				}
				if ($verdict -ceq 'run') {
					[Microsoft.PowerShell.PSConsoleReadLine]::AcceptLine()
				}
				elseif ($verdict -ceq 'more') {
					[Microsoft.PowerShell.PSConsoleReadLine]::AddLine()
				}
				else {
					# The line is kept in the history, and replaced by a call that
					# prints the refusal: the shell runs a command that fails.
					$state.Message = $message
					[Microsoft.PowerShell.PSConsoleReadLine]::AddToHistory($line)
					[Microsoft.PowerShell.PSConsoleReadLine]::Replace(0, $line.Length, '& $__CordonRefused')
					[Microsoft.PowerShell.PSConsoleReadLine]::AcceptLine()
				}
			}.GetNewClosure()

			# What a refused line is replaced with prints the refusal, sets
			# $LASTEXITCODE to 126 and $? to false. A constant: no line can
			# change it.
			$print = {
				[CmdletBinding()]
				param()
				[System.Console]::Error.Write($state.Message)
				$global:LASTEXITCODE = 126
				$PSCmdlet.WriteError([System.Management.Automation.ErrorRecord]::new([System.Exception]::new('refused by cordon: nothing was run'), 'CordonRefused', [System.Management.Automation.ErrorCategory]::PermissionDenied, $null))
			}.GetNewClosure()
			New-Variable -Name __CordonRefused -Scope Global -Option Constant -Value $print

			# Every key that accepts a line (Enter, and what the edit mode binds
			# to the same functions) asks cordon first.
			# In Vi mode, PSReadLine lists the command mode's keys in angle
			# brackets (<Enter>), a name -Chord does not take: those are bound
			# with -ViMode Command, by the name inside.
			$accept = @('AcceptLine', 'AcceptAndGetNext', 'ValidateAndAcceptLine', 'ViAcceptLine', 'ViAcceptLineOrExit')
			$vi = (Get-PSReadLineOption).EditMode -eq 'Vi'
			$keys = @('Enter')
			$commandKeys = @()
			if ($vi) {
				$commandKeys = @('Enter')
			}
			foreach ($h in @(Get-PSReadLineKeyHandler -Bound)) {
				if ($accept -contains $h.Function) {
					if ($h.Key.StartsWith('<') -and $h.Key.EndsWith('>') -and $h.Key.Length -gt 2) {
						$commandKeys += $h.Key.Substring(1, $h.Key.Length - 2)
					}
					else {
						$keys += $h.Key
					}
				}
			}
			foreach ($k in $keys) {
				Set-PSReadLineKeyHandler -Chord $k -ScriptBlock $handler -BriefDescription CordonAcceptLine
			}
			foreach ($k in $commandKeys) {
				Set-PSReadLineKeyHandler -Chord $k -ViMode Command -ScriptBlock $handler -BriefDescription CordonAcceptLine
			}
			# A refused line is in the history; the call that prints its
			# refusal is not (the up arrow brings back the line). The
			# person's own filter, if any, decides for the rest.
			$own = (Get-PSReadLineOption).AddToHistoryHandler
			$filter = {
				param([string]$entry)
				if ($entry -ceq '& $__CordonRefused') {
					return $false
				}
				if ($null -eq $own) {
					return $true
				}
				return $own.Invoke($entry)
			}.GetNewClosure()
			# The history stays in memory: the history file is among what
			# sandboxed commands cannot write (it holds what was typed).
			Set-PSReadLineOption -AddToHistoryHandler $filter -HistorySaveStyle SaveNothing
			# Checked, with what PSReadLine 2.0 (Windows PowerShell 5.1) has.
			$enter = $false
			foreach ($h in @(Get-PSReadLineKeyHandler -Bound)) {
				if ($accept -contains $h.Function) {
					throw ('the key ' + $h.Key + ' still accepts lines unjudged')
				}
				if ($h.Key -eq 'Enter' -and $h.Function -eq 'CordonAcceptLine') {
					$enter = $true
				}
			}
			if (-not $enter) {
				throw 'the Enter key handler could not be installed'
			}
			Export-ModuleMember
		}
	}
	catch {
		[System.Console]::Error.WriteLine('cordon: cannot judge the lines of this PowerShell: ' + $_.Exception.Message + '; it is closed, nothing was run. Open a new terminal, or run commands with pwsh -Command.')
		[System.Environment]::Exit(126)
	}
	Remove-Variable -Name __CordonChannel, __CordonCaller, __CordonModule
}
