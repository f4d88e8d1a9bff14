# Reads a JSON list of YAML texts on stdin and writes, for each, what libyaml reads in it, as a JSON list of
# {"value": ...} or {"refused": "..."} on stdout. libyaml is Debian's libyaml 0.2.5 (the version the reference
# implementation's serde_yaml 0.9 translates), through PyYAML's C parser (python3-yaml). The values are
# built as serde_yaml builds string fields: every scalar is its text whatever its tag, the null forms
# are null, and a duplicate key or a key that is a collection refuses the file.
import json
import re
import sys

import yaml
from yaml.constructor import ConstructorError

if not yaml.__with_libyaml__:
    sys.exit("PyYAML is installed without libyaml (apt-get install python3-yaml)")


class Loader(yaml.CBaseLoader):
    pass


Loader.add_implicit_resolver(
    "tag:yaml.org,2002:null", re.compile(r"^(?:~|null|Null|NULL|)$"), ["~", "n", "N", ""]
)


def node_value(loader, node):
    if isinstance(node, yaml.ScalarNode):
        return loader.construct_scalar(node)
    if isinstance(node, yaml.SequenceNode):
        return [loader.construct_object(item, deep=True) for item in node.value]
    mapping = {}
    for key_node, value_node in node.value:
        if not isinstance(key_node, yaml.ScalarNode):
            raise ConstructorError(None, None, "a key that is a collection", key_node.start_mark)
        key = loader.construct_object(key_node, deep=True)
        if key in mapping:
            raise ConstructorError(None, None, "a duplicate key", key_node.start_mark)
        mapping[key] = loader.construct_object(value_node, deep=True)
    return mapping


Loader.add_constructor("tag:yaml.org,2002:null", lambda loader, node: None)
for tag in ("str", "seq", "map"):
    Loader.add_constructor("tag:yaml.org,2002:" + tag, node_value)
Loader.add_multi_constructor("", lambda loader, _suffix, node: node_value(loader, node))

answers = []
for text in json.load(sys.stdin):
    try:
        answers.append({"value": yaml.load(text, Loader=Loader)})
    except Exception as err:  # every refusal, whatever libyaml or the construction above says
        answers.append({"refused": str(err).replace("\n", " ")[:300]})
json.dump(answers, sys.stdout)
