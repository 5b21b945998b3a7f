import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  buildParamsXml,
  escapeXmlAttribute,
  packParamsXml,
  packStoredParamsXml,
  parseParamsXml,
  renderParamsXml,
  type ParamsXmlColumns,
  type ParamValue,
} from '../../src/domain/paramsXml.ts';

describe('buildParamsXml', () => {
  test('writes the CreateWorkItem params in the given order', () => {
    const xml = buildParamsXml([
      ['ProcInstID', '0FD3088F40B640D4AFE41AEEBDAE914B'],
      ['ActivityInstID', 'A1'],
      ['HighPriority', false],
      ['WorkItemID', 'W1'],
      ['ExpectedTime', '2 DAY;BusinessTime=True'],
      ['workPerformer', 'Review'],
      ['SourceWorkItemID', 'S1'],
      ['UserID', 'LOCAL\\alice'],
      ['waitWorkPerformed', true],
      ['Carbon', false],
    ]);
    assert.equal(
      xml,
      '<WFEvent>' +
        '<param name="ProcInstID" value="0FD3088F40B640D4AFE41AEEBDAE914B"/>' +
        '<param name="ActivityInstID" value="A1"/>' +
        '<param name="HighPriority" value="False"/>' +
        '<param name="WorkItemID" value="W1"/>' +
        '<param name="ExpectedTime" value="2 DAY;BusinessTime=True"/>' +
        '<param name="workPerformer" value="Review"/>' +
        '<param name="SourceWorkItemID" value="S1"/>' +
        '<param name="UserID" value="LOCAL\\alice"/>' +
        '<param name="waitWorkPerformed" value="True"/>' +
        '<param name="Carbon" value="False"/>' +
        '</WFEvent>',
    );
  });

  test('has no XML declaration, and an empty list is an empty WFEvent', () => {
    assert.equal(buildParamsXml([]), '<WFEvent></WFEvent>');
  });

  test('writes null and undefined as empty strings and numbers in decimal', () => {
    assert.equal(
      buildParamsXml([['a', null], ['b', undefined], ['c', 42], ['d', -1.5], ['e', '']]),
      '<WFEvent><param name="a" value=""/><param name="b" value=""/><param name="c" value="42"/>' +
        '<param name="d" value="-1.5"/><param name="e" value=""/></WFEvent>',
    );
  });

  test('escapes markup characters in values and names', () => {
    assert.equal(escapeXmlAttribute(`a&b<c>d"e'f`), 'a&amp;b&lt;c&gt;d&quot;e&apos;f');
    assert.equal(escapeXmlAttribute('&amp;'), '&amp;amp;');
    assert.equal(buildParamsXml([['x"y', '<x/>']]), '<WFEvent><param name="x&quot;y" value="&lt;x/&gt;"/></WFEvent>');
  });

  test('writes tab, newline and carriage return as character references', () => {
    assert.equal(escapeXmlAttribute('a\tb\nc\rd'), 'a&#9;b&#10;c&#13;d');
  });

  test('drops characters XML 1.0 does not allow, keeps the rest of Unicode', () => {
    assert.equal(escapeXmlAttribute('\u0000a\u0001b\u0008\u000Bc\u000C\u001Fd\uFFFEe\uFFFF'), 'abcde');
    assert.equal(escapeXmlAttribute('\uD800x\uDC00y\uDBFF'), 'xy');
    assert.equal(escapeXmlAttribute('😀 é 中 \u007F \u0085'), '😀 é 中 \u007F \u0085');
    assert.equal(escapeXmlAttribute('plain text'), 'plain text');
  });
});

describe('parseParamsXml', () => {
  test('reads back what buildParamsXml writes', () => {
    const params: Array<[string, ParamValue]> = [
      ['ProcInstID', 'ABC'],
      ['HighPriority', true],
      ['Carbon', false],
      ['Count', 7],
      ['Empty', null],
      ['Tricky', `<a href="x">&amp; 'quoted'</a>\ttab\nline\r\nend`],
      ['Unicode', '😀 Grüße 中文'],
    ];
    assert.deepEqual(parseParamsXml(buildParamsXml(params)), [
      ['ProcInstID', 'ABC'],
      ['HighPriority', 'True'],
      ['Carbon', 'False'],
      ['Count', '7'],
      ['Empty', ''],
      ['Tricky', `<a href="x">&amp; 'quoted'</a>\ttab\nline\r\nend`],
      ['Unicode', '😀 Grüße 中文'],
    ]);
  });

  test('round-trips random strings (minus characters XML forbids)', () => {
    const alphabet = ['a', 'Z', '0', ' ', '&', '<', '>', '"', "'", '\t', '\n', '\r', ';', '=', '/', 'é', '😀', '\u0001', '\uFFFF', '&#9;'];
    let seed = 42;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let run = 0; run < 300; run++) {
      const value = Array.from({ length: Math.floor(random() * 20) }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
      const expected = value.replace(/[\u0001\uFFFF]/g, '');
      assert.deepEqual(parseParamsXml(buildParamsXml([['v', value]])), [['v', expected]], JSON.stringify(value));
    }
  });

  test('tolerates a declaration, whitespace, single quotes and attribute order', () => {
    const xml = `<?xml version="1.0" encoding="utf-16"?>\n<WFEvent>\n  <param value='1' name='A' />\n  <param name="B" value="x&#x41;&#66;"/>\n</WFEvent>\n`;
    assert.deepEqual(parseParamsXml(xml), [['A', '1'], ['B', 'xAB']]);
    assert.deepEqual(parseParamsXml('<WFEvent/>'), []);
    assert.deepEqual(parseParamsXml('<WFEvent></WFEvent>'), []);
    assert.deepEqual(parseParamsXml('<WFEvent><param name="N"/></WFEvent>'), [['N', '']]);
  });

  test('refuses what is not a ParamsXml document', () => {
    for (const xml of [
      '',
      'hello',
      '<Event></Event>',
      '<WFEvent><param value="x"/></WFEvent>',
      '<WFEvent><other name="a" value="b"/></WFEvent>',
      '<WFEvent><param name="a" value="b"></WFEvent>',
      '<WFEvent>text</WFEvent>',
      '<WFEvent><param name="a" value="b"/>',
    ]) {
      assert.throws(() => parseParamsXml(xml), Error, xml);
    }
  });
});

describe('speed', () => {
  test('builds 100 000 ten-param documents well within a second', () => {
    const params: Array<[string, ParamValue]> = [
      ['ProcInstID', '0FD3088F40B640D4AFE41AEEBDAE914B'],
      ['ActivityInstID', '0FD3088F40B640D4AFE41AEEBDAE914C'],
      ['HighPriority', false],
      ['WorkItemID', '0FD3088F40B640D4AFE41AEEBDAE914D'],
      ['ExpectedTime', '2 DAY;BusinessTime=True'],
      ['workPerformer', 'Review the contract & sign'],
      ['SourceWorkItemID', '0FD3088F40B640D4AFE41AEEBDAE914E'],
      ['UserID', 'LOCAL\\alice'],
      ['waitWorkPerformed', true],
      ['Carbon', false],
    ];
    const started = performance.now();
    let length = 0;
    for (let i = 0; i < 100_000; i++) length += buildParamsXml(params).length;
    const elapsed = performance.now() - started;
    assert.ok(length > 0);
    assert.ok(elapsed < 1500, `took ${elapsed.toFixed(0)} ms`);
  });
});

describe('stored form (packParamsXml, renderParamsXml, packStoredParamsXml)', () => {
  const row: ParamsXmlColumns = {
    proc_inst_id: '0FD3088F40B640D4AFE41AEEBDAE914B',
    activity_inst_id: '0FD3088F40B640D4AFE41AEEBDAE914C',
    high_priority: 0,
    work_item_id: '0FD3088F40B640D4AFE41AEEBDAE914D',
    source_work_item_id: '',
    user_id: 'LOCAL\\alice',
    proc_def_id: '0FD3088F40B640D4AFE41AEEBDAE914E',
    proc_inst_name: 'Order <PO-1001> & "rush"',
    parent_proc_inst_id: '',
  };
  const shapes: Array<[string, Array<[string, ParamValue]>, string]> = [
    ['AssignWorkItem', [['ProcInstID', row.proc_inst_id], ['ActivityInstID', row.activity_inst_id], ['HighPriority', false], ['WorkItemID', row.work_item_id]], 'PAHW'],
    [
      'CreateProcessInstance',
      [['ProcInstID', row.proc_inst_id], ['ProcDefID', row.proc_def_id], ['ProcInstName', row.proc_inst_name], ['HighPriority', false], ['Initiator', row.user_id], ['SuperProcInstID', '']],
      'PDNHIX',
    ],
    [
      'CreateWorkItem',
      [
        ['ProcInstID', row.proc_inst_id], ['ActivityInstID', row.activity_inst_id], ['HighPriority', false], ['WorkItemID', row.work_item_id],
        ['ExpectedTime', '2 DAY;BusinessTime=True'], ['workPerformer', 'Check <budget> & "costs"'], ['SourceWorkItemID', ''],
        ['UserID', row.user_id], ['waitWorkPerformed', true], ['Carbon', false],
      ],
      'PAHW"ExpectedTime>2 DAY;BusinessTime=True""workPerformer>Check &lt;budget&gt; &amp; &quot;costs&quot;"SU"waitWorkPerformed>True""Carbon>False"',
    ],
    ['FireTimer', [['ProcInstID', row.proc_inst_id], ['ActivityInstID', row.activity_inst_id], ['HighPriority', false], ['TimerEvent', 'Timer_1'], ['DueDate', '/Date(5+0000)/']], 'PAH"TimerEvent>Timer_1""DueDate>/Date(5+0000)/"'],
    ['no params', [], ''],
  ];

  for (const [label, params, packed] of shapes) {
    test(`${label}: stores ${JSON.stringify(packed)} and renders exactly what buildParamsXml writes`, () => {
      assert.equal(packParamsXml(params, row), packed);
      assert.equal(renderParamsXml(packed, row), buildParamsXml(params));
      assert.equal(packStoredParamsXml(buildParamsXml(params), row), packed);
    });
  }

  test('a param whose value differs from its column is stored as a literal', () => {
    const cancel: Array<[string, ParamValue]> = [['ProcInstID', row.proc_inst_id], ['HighPriority', true]];
    assert.equal(packParamsXml(cancel, row), 'P"HighPriority>True"');
    assert.equal(packParamsXml(cancel, { ...row, high_priority: 1 }), 'PH');
    const other: Array<[string, ParamValue]> = [['UserID', 'LOCAL\\bob'], ['WorkItemID', ''], ['ProcInstName', row.proc_inst_name.toUpperCase()]];
    const packed = packParamsXml(other, row);
    assert.equal(packed, '"UserID>LOCAL\\bob""WorkItemID>""ProcInstName>ORDER &lt;PO-1001&gt; &amp; &quot;RUSH&quot;"');
    assert.equal(renderParamsXml(packed, row), buildParamsXml(other));
  });

  test('random params and rows render back byte for byte', () => {
    const alphabet = ['a', 'Z', '0', ' ', '&', '<', '>', '"', "'", '\t', '\n', ';', '=', '!', 'é', '😀', '\u0001', 'P', '&amp;'];
    const names = ['ProcInstID', 'ActivityInstID', 'HighPriority', 'WorkItemID', 'SourceWorkItemID', 'UserID', 'Initiator', 'ProcDefID', 'ProcInstName', 'SuperProcInstID', 'Other', '"odd>name', ''];
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const text = () => Array.from({ length: Math.floor(random() * 6) }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)];
    for (let run = 0; run < 500; run++) {
      const values = ['', 'x', '&'];
      const r: ParamsXmlColumns = {
        proc_inst_id: pick(values), activity_inst_id: pick(values), high_priority: random() < 0.5 ? 0 : 1, work_item_id: text(),
        source_work_item_id: pick(values), user_id: text(), proc_def_id: pick(values), proc_inst_name: text(), parent_proc_inst_id: pick(values),
      };
      const params: Array<[string, ParamValue]> = Array.from({ length: Math.floor(random() * 8) }, () => [
        pick(names),
        random() < 0.3 ? random() < 0.5 : random() < 0.5 ? pick(values) : text(),
      ]);
      const xml = buildParamsXml(params);
      assert.equal(renderParamsXml(packParamsXml(params, r), r), xml, JSON.stringify({ params, r }));
      assert.equal(renderParamsXml(packStoredParamsXml(xml, r), r), xml, JSON.stringify({ params, r }));
    }
  });

  test('a stored document in another shape is kept verbatim', () => {
    for (const xml of ['<WFEvent/>', '<?xml version="1.0"?><WFEvent></WFEvent>', "<WFEvent><param name='A' value='1'/></WFEvent>", '', 'not xml', '<WFEvent> <param name="A" value="1"/></WFEvent>']) {
      const packed = packStoredParamsXml(xml, row);
      assert.equal(packed, `!${xml}`);
      assert.equal(renderParamsXml(packed, row), xml);
    }
  });

  test('refuses a malformed stored form', () => {
    for (const packed of ['"A>1', '"A1"', 'Q', 'P"']) assert.throws(() => renderParamsXml(packed, row), Error, packed);
  });
});
