import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildNameValueXml } from '../../src/domain/nameValueXml.ts';

const HEAD =
  '<?xml version="1.0" encoding="utf-8"?><ArrayOfNameValue xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema">';

test('no attribute gives the empty ArrayOfNameValue document', () => {
  assert.equal(buildNameValueXml([]), `${HEAD}</ArrayOfNameValue>`);
});

test('each attribute is a NameValue typed xsd:string, in the order given, markup escaped', () => {
  assert.equal(
    buildNameValueXml([
      { name: '/pd:AP/pd:total', value: '1500' },
      { name: 'note', value: '<b>"Taxi" & hotel</b>\n' },
    ]),
    `${HEAD}<NameValue><Name>/pd:AP/pd:total</Name><Value xsi:type="xsd:string">1500</Value></NameValue>` +
      '<NameValue><Name>note</Name><Value xsi:type="xsd:string">&lt;b&gt;&quot;Taxi&quot; &amp; hotel&lt;/b&gt;&#10;</Value></NameValue></ArrayOfNameValue>',
  );
});

test('characters XML cannot carry are dropped, so the document always parses', () => {
  assert.equal(buildNameValueXml([{ name: 'x', value: 'a\u0000b\uFFFEc' }]), `${HEAD}<NameValue><Name>x</Name><Value xsi:type="xsd:string">abc</Value></NameValue></ArrayOfNameValue>`);
});
