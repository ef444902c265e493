package winargs

import "errors"

// PowerShellOptions returns the arguments of a PowerShell command line
// (without the program name; pwsh true for pwsh) that set how the shell
// runs, in order: what is left when -NoExit and what selects the script
// (-Command and the rest of the line, -EncodedCommand and its value,
// -File and the rest, or the first argument that is no parameter) are
// taken out. An interactive shell started in its place with these, then
// -NoExit -Command, is the same shell running another script.
func PowerShellOptions(args []string, pwsh bool) ([]string, error) {
	params := powershellParams
	if pwsh {
		params = pwshParams
	}
	var keep []string
	for i := 0; i < len(args); i++ {
		key, isParam := paramKey(args[i], pwsh)
		if !isParam {
			return keep, nil // the script starts here
		}
		p := matchParam(params, key)
		if p == nil {
			return nil, errors.New("powershell: unknown or ambiguous parameter " + args[i])
		}
		switch p.name {
		case "command", "file":
			return keep, nil
		case "commandwithargs":
			return nil, errors.New("powershell: -CommandWithArgs in an interactive shell is not supported by cordon; use -Command")
		case "noexit":
			continue
		case "encodedcommand", "ec":
			i++ // and its value
			continue
		case "version":
			if pwsh {
				return nil, errors.New("powershell: -Version shows the version: nothing interactive to start")
			}
		}
		keep = append(keep, args[i])
		if p.value && i+1 < len(args) {
			i++
			keep = append(keep, args[i])
		}
	}
	return keep, nil
}
