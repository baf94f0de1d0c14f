package main

import (
	"io"

	"github.com/lockredis/lockredis/config"
	"github.com/spf13/pflag"
)

// The command line, generated from the configuration spec (package
// config): every parameter is a flag under each of its names, as
// redis-server takes --any-directive value. A flag's value is one
// argument, as redis-server quotes it into its config text (a value of
// several words is split by the parameters that take several). Those with
// a usage line show in --help, the others are hidden flags; flags are
// checked when given and applied over the config file, in their order.

// cli is the flag set and the values the command line gave.
type cli struct {
	fs            *pflag.FlagSet
	version, help *bool
	given         [][2]string // name, value, in command-line order
}

func newCLI(stderr io.Writer) *cli {
	c := &cli{fs: pflag.NewFlagSet("lockredis", pflag.ContinueOnError)}
	c.fs.SetOutput(stderr)
	c.fs.SortFlags = false
	for i := range config.Params {
		p := &config.Params[i]
		for _, name := range p.Names() {
			usage := p.Usage
			if name != p.Name && usage != "" {
				usage = "the same as --" + p.Name
			}
			f := c.fs.VarPF(paramFlag{p: p, name: name, cli: c}, name, p.Short, usage)
			f.DefValue = p.BinaryDefault()
			if usage == "" {
				f.Hidden = true
			}
			if name != p.Name {
				f.Shorthand = ""
			}
		}
	}
	c.version = c.fs.BoolP("version", "v", false, "print the version and exit")
	c.help = c.fs.BoolP("help", "h", false, "print this help and exit")
	return c
}

// settings are the binary's starting values, the config file's (path,
// "" for none) and the command line's over them.
func (c *cli) settings(path string) (*config.Settings, error) {
	s := config.NewSettings()
	for i := range config.Params {
		if p := &config.Params[i]; p.Binary != "" {
			if err := s.SetValue(p.Name, p.Binary); err != nil {
				return nil, err
			}
		}
	}
	if path != "" {
		if err := readConfigFile(s, path); err != nil {
			return nil, err
		}
	}
	for _, g := range c.given {
		if err := s.SetValue(g[0], g[1]); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// paramFlag is one parameter's flag.
type paramFlag struct {
	p    *config.Param
	name string
	cli  *cli
}

// Set checks the value now, so that a bad one is reported as a flag's,
// and keeps it for settings.
func (f paramFlag) Set(v string) error {
	if err := config.NewSettings().SetValue(f.name, v); err != nil {
		return err
	}
	f.cli.given = append(f.cli.given, [2]string{f.name, v})
	return nil
}

func (f paramFlag) String() string { return f.p.BinaryDefault() }

// Type is the word --help shows after the flag.
func (f paramFlag) Type() string {
	switch f.p.Kind {
	case config.Int:
		return "int"
	case config.Duration:
		return "duration"
	case config.Addresses:
		return "addresses"
	}
	return "string"
}
